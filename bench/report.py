"""Tables of results: bounds, speedups, efficiency, text, CSV and JSON.

Arithmetic (all on the max-over-ranks median times):

* speedup of a row vs a reference row = reference ms / row ms
  (> 1: the row is faster), against ``cuBLAS+NCCL``, ``cuBLAS+CE`` (the
  copy-engine all-gather, then cuBLAS: a faster transport, not overlap),
  async-TP and ``Triton+NCCL``; async-TP is timed both ways (default and
  ``TORCH_SYMM_MEM_ENABLE_NATIVE_ASYNC_TP=1``) and the faster is the
  reference (gemm-ar, which torch does not fuse: the faster of cuBLAS + the
  symmetric-memory one-shot and two-shot all-reduce);
* the communication floor ``floor min(NCCL, CE)`` = the faster of NCCL
  alone and the copy-engine copies alone (CE alone);
* ``bound max(cuBLAS, floor)`` = max(cuBLAS alone, floor) and
  ``bound max(Triton, floor)`` = max(Triton alone, floor): the time of
  perfect overlap with that GEMM over the faster transport;
* efficiency of a row = its compute engine's bound / row ms (cuBLAS rows
  against the cuBLAS bound, Triton and syncopate rows against the Triton
  bound; 1.0 = perfect overlap). Rows that measure one part alone have none;
* spread of a row = (slowest - fastest) / median of its per-round times
  (``Row.round_ms``), how far the rounds disagree;
* host ms = the median host time to issue one timed iteration.
"""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any

from syncopate.bench.variants import (
    ALONE_OF,
    ASYNC_TP,
    ASYNC_TP_ROWS,
    BOUND,
    BOUND_CUBLAS,
    BOUND_OF,
    BOUND_TRITON,
    COMM_ROWS,
    CUBLAS,
    FLOOR,
    SEQ_CE,
    SEQ_CUBLAS,
    SEQ_TRITON,
    TRITON,
)

OK, WRONG, NA = "ok", "WRONG", "n/a"
EXPLORE, CONFIRM = "explore", "confirm"  # the phases of a run (tools/overlap_bench.py --phases)
SPEEDUP_REFS: tuple[str, ...] = (SEQ_CUBLAS, SEQ_CE, ASYNC_TP, SEQ_TRITON)
CSV_COLUMNS: tuple[str, ...] = (
    "phase", "workload", "shape", "label", "M", "K", "N", "world", "dtype", "device", "variant", "group", "compute",
    "backend", "order", "chunks", "lanes", "tile", "reduce", "headline", "status", "ms", "min_ms", "host_ms",
    "ms_ranks", "round_ms", "spread", "error",
    "speedup_vs_cublas_nccl", "speedup_vs_cublas_ce", "speedup_vs_async_tp", "speedup_vs_triton_nccl", "bound_ms",
    "efficiency", "timing", "note",
)


@dataclass
class Row:
    """One measured (or derived) row."""

    variant: str
    group: str
    status: str  # "ok", "WRONG", or "n/a: <reason>"
    ms: float | None = None  # max over ranks of each rank's median
    compute: str | None = None
    backend: str | None = None
    order: str | None = None
    chunks: int | None = None  # the plan's chunks_per_rank (syncopate rows)
    lanes: int | None = None  # the runtime's ce lanes (syncopate rows)
    tile: str | None = None  # the fused GEMM's own tile, "" = the shape's configuration (syncopate rows)
    reduce: str | None = None  # where a reduce-scatter's partials are summed: "stream" or "epilogue" (syncopate rows)
    headline: str = ""  # set on the confirm phase's chosen row: where the choice came from
    min_ms: float | None = None
    host_ms: float | None = None
    ms_ranks: list[float] = field(default_factory=list)
    round_ms: list[float] = field(default_factory=list)  # max over ranks of each timing round's median (bench/runner.py)
    error: float | None = None  # scaled max error of the check
    timing: str = "events"  # "events" (eager launches) or "graph" (CUDA graph replays)
    note: str = ""  # e.g. "after the timed launches", "eager: CUDA graph capture failed: ..."

    @property
    def ok(self) -> bool:
        return self.status == OK and self.ms is not None

    @property
    def spread(self) -> float | None:
        """(slowest - fastest) / median of the per-round times; None with fewer than two rounds."""
        rounds = [x for x in self.round_ms if math.isfinite(x)]
        if len(rounds) < 2:
            return None
        mid = statistics.median(rounds)
        return (max(rounds) - min(rounds)) / mid if mid > 0 else None


@dataclass
class Table:
    """All rows of one workload and shape."""

    workload: str
    shape: str
    label: str
    M: int
    K: int
    N: int
    world: int
    dtype: str
    device: str
    rows: list[Row] = field(default_factory=list)
    note: str = ""
    config: str = ""  # the Triton kernel's block sizes and launch options
    phase: str = EXPLORE  # explore: every row (best-of-N); confirm: the baselines and the headline row

    def row(self, variant: str) -> Row | None:
        return next((r for r in self.rows if r.variant == variant), None)

    def ms(self, variant: str) -> float | None:
        r = self.row(variant)
        return r.ms if r is not None and r.ok else None

    def fastest_ms(self, variants: tuple[str, ...]) -> float | None:
        """The fastest time among the checked rows named ``variants``."""
        times = [t for t in (self.ms(v) for v in variants) if t is not None]
        return min(times) if times else None

    def reference_ms(self, reference: str) -> float | None:
        """The time a speedup is taken against: async-TP's faster mode, else the named row's."""
        return self.fastest_ms(ASYNC_TP_ROWS) if reference == ASYNC_TP else self.ms(reference)

    def headline(self) -> Row | None:
        """The confirm phase's chosen row (chosen before timing)."""
        return next((r for r in self.rows if r.headline), None)

    def speedup(self, row: Row, reference: str) -> float | None:
        """reference ms / row ms, or None when either is missing."""
        ref = self.reference_ms(reference)
        if ref is None or not row.ok or not row.ms:
            return None
        return ref / row.ms

    def bound_ms(self, row: Row) -> float | None:
        """The perfect-overlap time for ``row``'s compute engine."""
        if row.compute not in BOUND_OF:
            return None
        return self.ms(BOUND_OF[row.compute])

    def efficiency(self, row: Row) -> float | None:
        bound = self.bound_ms(row)
        if bound is None or not row.ok or not row.ms:
            return None
        return bound / row.ms


def add_bounds(table: Table) -> None:
    """Append (or replace) the floor and the two bound rows from the alone rows."""
    table.rows = [r for r in table.rows if r.group != BOUND]
    comm = table.fastest_ms(COMM_ROWS)
    if comm is None:
        table.rows.append(Row(FLOOR, BOUND, f"{NA}: needs {' or '.join(COMM_ROWS)}"))
    else:
        table.rows.append(Row(FLOOR, BOUND, OK, comm))
    for compute, name in ((CUBLAS, BOUND_CUBLAS), (TRITON, BOUND_TRITON)):
        alone = table.ms(ALONE_OF[compute])
        if alone is None or comm is None:
            missing = ", ".join(n for n, v in ((ALONE_OF[compute], alone), (FLOOR, comm)) if v is None)
            table.rows.append(Row(name, BOUND, f"{NA}: needs {missing}", compute=compute))
        else:
            table.rows.append(Row(name, BOUND, OK, max(alone, comm), compute=compute))


def _num(value: float | None, fmt: str) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, fmt)


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def format_table(table: Table) -> str:
    """The table as aligned text: one line per row."""
    head = (f"== {table.workload}  {table.label}  (M={table.M} K={table.K} N={table.N}, W={table.world}, "
            f"{table.dtype}, {table.device}) [{table.phase}] ==")
    cols = ("variant", "ms", "vs cuBLAS+NCCL", "vs cuBLAS+CE", "vs async-TP", "vs Triton+NCCL", "eff", "spread",
            "host ms", "status")
    width = max([len(cols[0])] + [len(r.variant) for r in table.rows])
    lines = [head]
    if table.note or table.config:
        parts = (table.note, f"Triton kernel {table.config}" if table.config else "")
        lines.append("   " + "; ".join(x for x in parts if x))
    lines.append(f"{cols[0]:<{width}}  {cols[1]:>8}  {cols[2]:>14}  {cols[3]:>12}  {cols[4]:>11}  {cols[5]:>14}  "
                 f"{cols[6]:>5}  {cols[7]:>6}  {cols[8]:>7}  {cols[9]}")
    for r in table.rows:
        sp = [table.speedup(r, ref) for ref in SPEEDUP_REFS]
        status = r.status if r.status != WRONG else f"WRONG (error {_num(r.error, '.2e')} x rms)"
        notes = [n for n in (r.headline and f"headline: {r.headline}", r.note,
                             "graph" if r.timing == "graph" and not r.note else "") if n]
        status += "".join(f" [{n}]" for n in notes)
        lines.append(f"{r.variant:<{width}}  {_num(r.ms, '8.3f'):>8}  {_x(sp[0]):>14}  {_x(sp[1]):>12}  "
                     f"{_x(sp[2]):>11}  {_x(sp[3]):>14}  {_num(table.efficiency(r), '.2f'):>5}  "
                     f"{_pct(r.spread):>6}  {_num(r.host_ms, '7.3f'):>7}  {status}")
    return "\n".join(lines)


def table_records(table: Table) -> list[dict[str, Any]]:
    """One flat dict per row (the CSV rows), derived columns included."""
    records = []
    for r in table.rows:
        sp = [table.speedup(r, ref) for ref in SPEEDUP_REFS]
        records.append({
            "phase": table.phase, "workload": table.workload, "shape": table.shape, "label": table.label, "M": table.M, "K": table.K,
            "N": table.N, "world": table.world, "dtype": table.dtype, "device": table.device,
            "variant": r.variant, "group": r.group, "compute": r.compute, "backend": r.backend, "order": r.order,
            "chunks": r.chunks, "lanes": r.lanes, "tile": r.tile, "reduce": r.reduce, "headline": r.headline,
            "status": r.status, "ms": r.ms, "min_ms": r.min_ms, "host_ms": r.host_ms,
            "ms_ranks": ";".join(f"{x:.6f}" for x in r.ms_ranks),
            "round_ms": ";".join(f"{x:.6f}" for x in r.round_ms), "spread": r.spread, "error": r.error,
            "speedup_vs_cublas_nccl": sp[0], "speedup_vs_cublas_ce": sp[1], "speedup_vs_async_tp": sp[2],
            "speedup_vs_triton_nccl": sp[3],
            "bound_ms": table.bound_ms(r), "efficiency": table.efficiency(r), "timing": r.timing, "note": r.note,
        })
    return records


def csv_text(tables: list[Table]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for t in tables:
        for rec in table_records(t):
            writer.writerow({k: "" if v is None else v for k, v in rec.items()})
    return buf.getvalue()


def _clean(value: Any) -> Any:
    """JSON has no NaN: write null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def json_document(tables: list[Table], meta: dict[str, Any], summary: dict[str, Any] | None = None) -> dict[str, Any]:
    """``{"meta": ..., "tables": [{..., "rows": [...]}]}`` with the derived columns per row, and
    ``"summary"`` (``bench.summary.summary_record``) when given."""
    out = []
    for t in tables:
        body = {k: v for k, v in asdict(t).items() if k != "rows"}
        body["rows"] = table_records(t)
        for rec, row in zip(body["rows"], t.rows):
            rec["ms_ranks"] = list(row.ms_ranks)
            rec["round_ms"] = list(row.round_ms)
        out.append(body)
    doc: dict[str, Any] = {"meta": meta, "tables": out}
    if summary is not None:
        doc["summary"] = summary
    return _clean(doc)


def json_text(tables: list[Table], meta: dict[str, Any], summary: dict[str, Any] | None = None) -> str:
    return json.dumps(json_document(tables, meta, summary), indent=2, allow_nan=False) + "\n"


def any_wrong(tables: list[Table]) -> bool:
    return any(r.status == WRONG for t in tables for r in t.rows)

