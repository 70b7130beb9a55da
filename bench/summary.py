"""The run's verdict across shapes: one syncopate row of each table against
that table's own baselines, geometric means, and the targets of the
benchmark protocol (docs/performance.md):

* faster than cuBLAS+NCCL (sequential) and than async-TP on every shape;
* geometric-mean speedup over sequential >= :data:`TARGET_GEOMEAN` (the
  paper's 1.3x average);
* efficiency (the Triton bound / fused time) >= :data:`TARGET_EFFICIENCY`,
  i.e. within 10% of max(local Triton kernel alone, floor min(NCCL alone, CE alone));
* the ceiling: the speedup over cuBLAS+NCCL that perfect overlap of the
  row's own kernel with the faster transport would give (cuBLAS+NCCL /
  max(kernel alone, floor min(NCCL, CE))), so a missed geometric-mean
  target says whether better overlap could have met it or only a faster
  local kernel;
* the fused kernel without communication ("syncopate no-comm",
  bench/no_comm.py) as fast as the local kernel ("Triton alone"): their
  time ratio per shape.

Which row: in a confirmation table (``--phases confirm``) the headline
row, chosen before timing (bench/headline.py); in an exploration table the
fastest row that passed its check, as ``--autotune`` picks it. The latter
is best-of-N, chosen after timing, so it is optimistic: its section says
so, and when a run has both phases the confirmation is the verdict. A
table without its row (all n/a, as in ``--cpu`` runs) is listed as such
and left out of the means. Speedups are taken within one table only: the
same process group, the same GPUs, back to back.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from syncopate.bench.report import CONFIRM, EXPLORE, Row, Table
from syncopate.bench.variants import ASYNC_TP, FUSED, NO_COMM, SEQ_CE, SEQ_CUBLAS, SEQ_TRITON, TRITON_ALONE, is_direct

TARGET_GEOMEAN = 1.3
TARGET_EFFICIENCY = 0.9


@dataclass(frozen=True)
class Best:
    """The verdict row of one table and how it compares."""

    table: Table
    row: Row
    vs_sequential: float | None  # cuBLAS+NCCL ms / row ms
    vs_async_tp: float | None  # None where the table has no async-TP time (attention, MoE)
    vs_ce_sequential: float | None  # cuBLAS+CE ms / row ms (the copy-engine all-gather, then cuBLAS; ag-gemm)
    vs_triton_sequential: float | None
    efficiency: float | None
    ceiling: float | None  # cuBLAS+NCCL ms / the row's bound ms: vs_sequential at efficiency 1

    @property
    def name(self) -> str:
        return self.row.variant.removeprefix("syncopate ")


def verdict_row(table: Table) -> Row | None:
    """The row a table is judged by: the headline (confirm) or the fastest checked syncopate row (explore)."""
    if table.phase == CONFIRM:
        r = table.headline()
        return r if r is not None and r.ok else None
    rows = [r for r in table.rows if r.group == FUSED and r.ok and not is_direct(r.variant)]
    return min(rows, key=lambda x: x.ms or math.inf) if rows else None


def best_rows(tables: Iterable[Table]) -> tuple[list[Best], list[Table]]:
    """(the verdict row of every table that has one, the tables without one)."""
    found, without = [], []
    for t in tables:
        r = verdict_row(t)
        if r is None:
            without.append(t)
            continue
        seq, bound = t.ms(SEQ_CUBLAS), t.bound_ms(r)
        found.append(Best(t, r, t.speedup(r, SEQ_CUBLAS), t.speedup(r, ASYNC_TP), t.speedup(r, SEQ_CE),
                          t.speedup(r, SEQ_TRITON), t.efficiency(r), seq / bound if seq is not None and bound else None))
    return found, without


def no_comm_ratios(tables: Iterable[Table]) -> list[tuple[Table, float]]:
    """(table, "syncopate no-comm" ms / "Triton alone" ms) for every table where both rows were checked and timed."""
    out = []
    for t in tables:
        mine, alone = t.ms(NO_COMM), t.ms(TRITON_ALONE)
        if mine is not None and alone:
            out.append((t, mine / alone))
    return out


def geomean(values: Sequence[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _count(best: list[Best], value: str, passes: Any, what: str) -> str:
    """``faster than X on 3/4 shapes (missed: A, B)`` over the shapes that have ``value``."""
    measured = [b for b in best if getattr(b, value) is not None]
    missed = [b.table.label for b in measured if not passes(getattr(b, value))]
    text = f"{what} on {len(measured) - len(missed)}/{len(measured)} shapes"
    return text + (f" (missed: {', '.join(missed)})" if missed else "")


TITLES = {
    CONFIRM: "== summary [confirm]: the headline row per shape (chosen before timing), against the same table's "
             "baselines ==",
    EXPLORE: "== summary [explore]: best checked syncopate row per shape (best-of-N, chosen after timing: "
             "optimistic, not a headline) ==",
}


def phases(tables: Sequence[Table]) -> list[str]:
    """The phases present, the verdict's (confirm, when present) first."""
    present = {t.phase for t in tables}
    return [p for p in (CONFIRM, EXPLORE) if p in present]


def format_summary(tables: Iterable[Table]) -> str:
    """One section per phase present (see :func:`format_phase`), confirmation first."""
    tables = list(tables)
    return "\n\n".join(format_phase([t for t in tables if t.phase == p]) for p in phases(tables) or [EXPLORE])


def format_phase(tables: Sequence[Table]) -> str:
    """The verdict of one phase as text: one line per shape, then the means and the targets."""
    best, without = best_rows(tables)
    lines = [TITLES[tables[0].phase if tables else EXPLORE]]
    if not best:
        return "\n".join(lines + ["no checked syncopate row in this run (nothing to compare)"] + _no_comm_lines(tables))
    label_w = max(len(f"{b.table.workload} {b.table.label}") for b in best)
    name_w = max(len("best row"), *(len(b.name) for b in best))
    lines.append(f"{'shape':<{label_w}}  W  {'best row':<{name_w}}  {'ms':>8}  {'vs cuBLAS+NCCL':>14}  "
                 f"{'vs async-TP':>11}  {'vs Triton+NCCL':>14}  {'eff':>5}  {'ceiling':>7}  {'spread':>6}  "
                 f"{'host ms':>7}")
    for b in best:
        eff = "-" if b.efficiency is None else f"{b.efficiency:.2f}"
        spread = "-" if b.row.spread is None else f"{100 * b.row.spread:.1f}%"
        host = "-" if b.row.host_ms is None else f"{b.row.host_ms:.3f}"
        lines.append(f"{b.table.workload + ' ' + b.table.label:<{label_w}}  {b.table.world}  {b.name:<{name_w}}  "
                     f"{b.row.ms:8.3f}  {_x(b.vs_sequential):>14}  {_x(b.vs_async_tp):>11}  "
                     f"{_x(b.vs_triton_sequential):>14}  {eff:>5}  {_x(b.ceiling):>7}  {spread:>6}  {host:>7}")
    for t in without:
        lines.append(f"{t.workload + ' ' + t.label:<{label_w}}  {t.world}  (no checked syncopate row)")
    seq = [b.vs_sequential for b in best if b.vs_sequential is not None]
    atp = [b.vs_async_tp for b in best if b.vs_async_tp is not None]
    g_seq, g_atp = geomean(seq), geomean(atp)
    if g_seq is not None:
        verdict = "met" if g_seq >= TARGET_GEOMEAN else "missed"
        lines.append(f"geometric mean vs cuBLAS+NCCL: {g_seq:.2f}x over {len(seq)} shapes "
                     f"(target {TARGET_GEOMEAN}x: {verdict})")
        lines.append(_ceiling_line(best))
    if g_atp is not None:
        lines.append(f"geometric mean vs async-TP: {g_atp:.2f}x over {len(atp)} shapes")
    ce = [b.vs_ce_sequential for b in best if b.vs_ce_sequential is not None]
    if ce:  # against the faster transport without overlap: what overlap itself buys
        lines.append(f"geometric mean vs cuBLAS+CE (copy-engine all-gather, then cuBLAS): {geomean(ce):.2f}x "
                     f"over {len(ce)} shapes")
    lines.append(_count(best, "vs_sequential", lambda v: v > 1.0, "faster than cuBLAS+NCCL"))
    if atp:
        lines.append(_count(best, "vs_async_tp", lambda v: v > 1.0, "faster than async-TP"))
    lines.append(_count(best, "efficiency", lambda v: v >= TARGET_EFFICIENCY,
                        f"efficiency >= {TARGET_EFFICIENCY}"))
    return "\n".join(lines + _no_comm_lines(tables))


def _ceiling_line(best: list[Best]) -> str:
    """The geometric mean that perfect overlap of the same rows' kernels would give."""
    ceilings = [b.ceiling for b in best if b.ceiling is not None and b.vs_sequential is not None]
    if len(ceilings) < len([b for b in best if b.vs_sequential is not None]):
        return "ceiling (perfect overlap of the same kernels): - (a shape lacks its bound)"
    g = geomean(ceilings)
    reach = ("the target is out of reach of these kernels, however well they overlap" if g < TARGET_GEOMEAN
             else "the target is within reach")
    return (f"ceiling (perfect overlap of the same kernels): {g:.2f}x over {len(ceilings)} shapes "
            f"(cuBLAS+NCCL / bound max(kernel, floor min(NCCL, CE)); {reach})")


def _no_comm_lines(tables: Sequence[Table]) -> list[str]:
    ratios = no_comm_ratios(tables)
    if not ratios:
        return []
    worst_table, worst = max(ratios, key=lambda x: x[1])
    return [f"fused kernel without communication / Triton alone: geometric mean {geomean([r for _, r in ratios]):.3f} "
            f"over {len(ratios)} shapes, worst {worst:.3f} ({worst_table.workload} {worst_table.label})"]


def summary_record(tables: Iterable[Table]) -> dict[str, Any]:
    """The verdict for results.json: the record of the verdict's phase
    (:func:`phase_record`: confirm when the run has it), and under
    ``"explore"`` the exploration's when the run has both."""
    tables = list(tables)
    present = phases(tables) or [EXPLORE]
    record = phase_record([t for t in tables if t.phase == present[0]], present[0])
    if len(present) > 1:
        record["explore"] = phase_record([t for t in tables if t.phase == EXPLORE], EXPLORE)
    return record


def phase_record(tables: Sequence[Table], phase: str) -> dict[str, Any]:
    """One phase's verdict: its row per shape and the means."""
    best, without = best_rows(tables)
    seq = [b.vs_sequential for b in best if b.vs_sequential is not None]
    atp = [b.vs_async_tp for b in best if b.vs_async_tp is not None]
    return {
        "phase": phase,
        "best": [{"workload": b.table.workload, "shape": b.table.shape, "label": b.table.label,
                  "world": b.table.world, "variant": b.row.variant, "ms": b.row.ms, "host_ms": b.row.host_ms,
                  "spread": b.row.spread, "headline": b.row.headline,
                  "speedup_vs_cublas_nccl": b.vs_sequential, "speedup_vs_async_tp": b.vs_async_tp,
                  "speedup_vs_cublas_ce": b.vs_ce_sequential,
                  "speedup_vs_triton_nccl": b.vs_triton_sequential, "efficiency": b.efficiency,
                  "ceiling_vs_cublas_nccl": b.ceiling} for b in best],
        "without_fused_row": [{"workload": t.workload, "shape": t.shape} for t in without],
        "geomean_vs_cublas_nccl": geomean(seq),
        "geomean_vs_async_tp": geomean(atp),
        "geomean_vs_cublas_ce": geomean([b.vs_ce_sequential for b in best if b.vs_ce_sequential is not None]),
        "geomean_ceiling_vs_cublas_nccl": geomean([b.ceiling for b in best if b.ceiling is not None]),
        "no_comm_vs_triton_alone": [{"workload": t.workload, "shape": t.shape, "ratio": r}
                                    for t, r in no_comm_ratios(tables)],
        "target_geomean": TARGET_GEOMEAN,
        "target_efficiency": TARGET_EFFICIENCY,
    }
