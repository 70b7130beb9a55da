"""The autotune cache: the best measured (backend, tile order, chunks per
rank, ce lanes, GEMM tile, reduction) per situation.

Keyed by (workload, global shape ``MxKxN``, world size, device name); the
value is the fastest syncopate row that passed its check. ``overlap-bench
--autotune`` writes it (default ``~/.cache/syncopate/autotune.json``, or
``--cache PATH``); :func:`best_choice` reads it, e.g. for a launcher that
picks ``overlap{order=... backend=...}`` before compiling.

File format (JSON): ``{"version": 1, "entries": {"<workload>|<MxKxN>|<W>|<device>":
{"backend": ..., "order": ..., "chunks": ..., "lanes": ..., "tile": ..., "reduce": ...,
"ms": ..., "variant": ..., "measured": <unix time>}}}``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from syncopate.bench.report import Table
from syncopate.bench.variants import FUSED, fused_name, is_direct, overlap_pass

VERSION = 1


class AutotuneError(Exception):
    """An unreadable cache file."""


DEFAULT_DTYPE = "bfloat16"  # the bench's dtype unless --dtype says otherwise: its keys carry no dtype


def tune_dtype(dtype: str, device: str) -> str:
    """The dtype a tune key names: the run's on GPUs; a CPU run (always fp32
    in the interpreter) keeps the default key, as before --dtype existed."""
    return DEFAULT_DTYPE if device == "cpu" else dtype


class TuneKey(NamedTuple):
    workload: str
    shape: str  # global sizes "MxKxN" (Shape.key)
    world: int
    device: str
    dtype: str = DEFAULT_DTYPE  # torch's name without "torch."

    def text(self) -> str:
        base = f"{self.workload}|{self.shape}|{self.world}|{self.device}"
        # bf16 keys stay as before, so existing caches keep their entries
        return base if self.dtype == DEFAULT_DTYPE else f"{base}|{self.dtype}"


@dataclass(frozen=True)
class Choice:
    backend: str
    order: str
    ms: float
    variant: str
    chunks: int = 1  # the plan's chunks_per_rank
    lanes: int = 1  # the runtime's ce lanes (GpuWorld.context(ce_lanes=...))
    tile: str = ""  # the fused GEMM's tile "BMxBN[xBK]" ("" = the shape's Triton configuration)
    reduce: str = "stream"  # overlap{reduce=...} (entries written before it existed: stream)

    def text(self) -> str:
        """The row options, as in the row names: ``ce/arrival/c2/t128x128``."""
        return fused_name(self.backend, self.order, self.chunks, self.lanes, self.tile,
                          self.reduce).removeprefix("syncopate ")

    @property
    def pipeline(self) -> Any:
        """The ``overlap`` pass this choice compiles with."""
        return overlap_pass(self.backend, self.order, self.reduce)


def default_cache_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "syncopate", "autotune.json")


def load_cache(path: str | None = None) -> dict[str, dict[str, Any]]:
    """The cache's entries ({} when the file does not exist)."""
    path = path or default_cache_path()
    if not os.path.exists(path):
        return {}
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as err:
        raise AutotuneError(f"autotune cache {path} is unreadable: {err}") from err
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("entries"), dict):
        raise AutotuneError(f"autotune cache {path} is not a version-{VERSION} syncopate cache")
    return data["entries"]


def save_cache(entries: dict[str, dict[str, Any]], path: str | None = None) -> str:
    """Write ``entries`` atomically; return the path."""
    path = path or default_cache_path()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump({"version": VERSION, "entries": entries}, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)
    return path


def best_of(table: Table) -> Choice | None:
    """The fastest checked syncopate row of ``table`` (``/direct`` rows
    excluded: a call with an ordinary input cannot take that path)."""
    rows = [r for r in table.rows if r.group == FUSED and r.ok and r.backend and r.order and not is_direct(r.variant)]
    if not rows:
        return None
    best = min(rows, key=lambda r: r.ms)
    assert best.ms is not None and best.backend is not None and best.order is not None
    return Choice(best.backend, best.order, best.ms, best.variant, best.chunks or 1, best.lanes or 1, best.tile or "",
                  best.reduce or "stream")


def key_of(table: Table) -> TuneKey:
    return TuneKey(table.workload, f"{table.M}x{table.K}x{table.N}", table.world, table.device,
                   tune_dtype(table.dtype, table.device))


def record(tables: Iterable[Table], path: str | None = None) -> list[tuple[TuneKey, Choice | None]]:
    """Store the best choice of every table in the cache; return (key, choice
    in the cache afterwards) per table.

    A table without a checked syncopate row leaves its entry unchanged. So
    does a table that did not run the cached choice's options when the cached
    time is faster: a run of other rows (say ``--backends sm``) cannot evict
    a better choice it never measured. When the table ran the cached options
    too, its own best wins, since the two were timed side by side.
    """
    entries = load_cache(path)
    results = []
    for table in tables:
        key, choice = key_of(table), best_of(table)
        cached = best_choice(key, path) if key.text() in entries else None
        if choice is not None and cached is not None and cached.ms < choice.ms and not _ran(table, cached):
            choice = cached
        elif choice is not None:
            entries[key.text()] = {"backend": choice.backend, "order": choice.order, "chunks": choice.chunks,
                                   "lanes": choice.lanes, "tile": choice.tile, "reduce": choice.reduce,
                                   "ms": choice.ms, "variant": choice.variant,
                                   "measured": time.time()}
        results.append((key, choice))
    save_cache(entries, path)
    return results


def _ran(table: Table, choice: Choice) -> bool:
    """``table`` has a checked syncopate row with ``choice``'s options."""
    return any(r.group == FUSED and r.ok and not is_direct(r.variant) and (r.backend, r.order, r.chunks or 1, r.lanes or 1, r.tile or "",
                                              r.reduce or "stream") ==
               (choice.backend, choice.order, choice.chunks, choice.lanes, choice.tile, choice.reduce)
               for r in table.rows)


def best_choice(key: TuneKey | tuple, path: str | None = None) -> Choice | None:
    """The cached best row options for ``key``, or None if never measured."""
    entry = load_cache(path).get(TuneKey(*key).text())
    if entry is None:
        return None
    return Choice(str(entry["backend"]), str(entry["order"]), float(entry["ms"]), str(entry.get("variant", "")),
                  int(entry.get("chunks", 1)), int(entry.get("lanes", 1)), str(entry.get("tile", "")),
                  str(entry.get("reduce", "stream")))
