"""Autotuning the benchmark's local Triton GEMM (``overlap-bench --tune-gemm``).

For one shape, every candidate :class:`GemmConfig` (pointer or TMA kernel,
block sizes, warps, stages) runs the shape's local GEMM on every rank: the
gathered ``M x K`` A times this rank's ``K x N/W`` B (ag-gemm), or
``M x K/W`` times ``K/W x N`` (gemm-rs, gemm-ar). A candidate is checked against the
fp32 reference (output poisoned first) before it is timed; one that fails
or does not compile on any rank is out. Time: the median of CUDA-event
timed launches, maximum over ranks; cuBLAS (``torch.matmul``) is timed the
same way so the table shows each candidate's share of cuBLAS throughput.

The winner goes to the autotune cache (the file ``bench/autotune.py``
keeps) under ``gemm|<workload>|<MxKxN>|<W>|<device>``; later runs of the
same situation use it (:func:`tuned_config`) for the local Triton rows and
every fused row alike, so the comparison still isolates the fusion.
"""

from __future__ import annotations

import dataclasses
import functools
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from syncopate.bench import autotune
from syncopate.bench.check import check_result, poison
from syncopate.bench.configs import CPU_DEFAULT, GPU_DEFAULT, PERSISTENT_KERNELS, GemmConfig
from syncopate.bench.context import BenchWorld
from syncopate.bench.gemm import gemm_kernel, launch_gemm
from syncopate.bench.problem import OUT, PARTIAL, BenchSpec
from syncopate.bench.shapes import A2A_GEMM, AG_GEMM, GEMM_WORKLOADS, REDUCED, Shape
from syncopate.bench.timing import time_run


def _hopper_candidates() -> tuple[GemmConfig, ...]:
    tiles = [(128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (256, 128, 64, 8, 3), (128, 128, 64, 4, 4),
             (128, 128, 64, 8, 4)]
    return tuple(GemmConfig(*t, kernel=k) for k in ("ptr", "tma") for t in tiles) + (
        GemmConfig(128, 256, 128, 8, 2, kernel="tma"),)


CANDIDATES: tuple[GemmConfig, ...] = _hopper_candidates()
CPU_CANDIDATES: tuple[GemmConfig, ...] = (CPU_DEFAULT, dataclasses.replace(CPU_DEFAULT, kernel="tma"))
# the persistent kernel's best-known Hopper tiles
PERSISTENT: tuple[GemmConfig, ...] = tuple(GemmConfig(*t, kernel=k) for k in PERSISTENT_KERNELS
                                           for t in ((128, 256, 64, 8, 3), (256, 128, 64, 8, 3), (128, 128, 64, 8, 4)))


# workloads --tune-gemm tunes: their Triton and fused rows run a GemmConfig
TUNED_WORKLOADS: tuple[str, ...] = (*GEMM_WORKLOADS, A2A_GEMM)


def candidates_for(workload: str, cpu: bool = False) -> tuple[GemmConfig, ...]:
    """The configs ``--tune-gemm`` tries for ``workload``: pointer, TMA and
    persistent kernels (a2a-gemm: its grouped GEMMs), and for gemm-rs and
    gemm-ar the persistent kernel with FLATTEN too (their fused kernels wait
    for nothing, the only ones that keep it)."""
    base = CPU_CANDIDATES if cpu else CANDIDATES
    if workload not in TUNED_WORKLOADS:
        return base
    persistent = tuple(dataclasses.replace(CPU_DEFAULT, kernel=k) for k in PERSISTENT_KERNELS) if cpu else PERSISTENT
    if workload not in REDUCED:  # fused kernels that wait in the tile loop, where lower-chunk-to-tile drops FLATTEN
        persistent = tuple(c for c in persistent if c.kernel != "persistent-flat")
    return base + persistent


@dataclass(frozen=True)
class Trial:
    config: GemmConfig
    ms: float | None  # max over ranks; None when the candidate is out
    status: str  # "ok" or why it is out


@dataclass(frozen=True)
class TuneTarget:
    """What ``--tune-gemm`` runs for one shape on this rank: the local GEMM of
    a config, the tensor it writes, the fp32 reference, the cuBLAS version and
    the GEMM's flop count."""

    launch: Callable[[GemmConfig], None]
    output: torch.Tensor
    reference: torch.Tensor
    cublas: Callable[[], None]
    flops: float


def target(spec: BenchSpec) -> TuneTarget:
    """The local GEMM of ``spec``: the gathered ``M x K`` A times this rank's
    ``K x N/W`` B (ag-gemm), ``M x K/W`` times ``K/W x N`` (gemm-rs, gemm-ar), or the
    grouped GEMM over the received rows (a2a-gemm, ``bench/moe.py``)."""
    p = spec.problem
    if p is None:
        raise ValueError(f"workload '{spec.workload}' has no GEMM to tune")
    if spec.workload == A2A_GEMM:
        return _grouped_target(p)
    if spec.workload == AG_GEMM:
        assert p.a_full is not None
        a, b, ref = p.a_full, p.b, p.references[OUT]
    else:
        a, b, ref = p.a, p.b, p.references[PARTIAL]
    c = torch.empty((a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device)
    return TuneTarget(lambda config: launch_gemm(gemm_kernel(config), a, b, c, config), c, ref,
                      lambda: torch.matmul(a, b, out=c), 2.0 * a.shape[0] * a.shape[1] * b.shape[1])


def _grouped_target(p: Any) -> TuneTarget:
    """a2a-gemm's target: the grouped GEMM over the received rows of a
    config (its own tile tables, ``bench/moe.py``), against one
    torch.matmul per segment."""
    from syncopate.bench import moe

    d = p.dims
    out = torch.empty((d.rows, d.ffn), dtype=p.recv.dtype, device=p.recv.device)

    tables: dict[int, tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = {}  # per block_m, built before timing

    def launch(config: GemmConfig) -> None:
        if config.block_m not in tables:
            tables[config.block_m] = moe.tile_tables(d, config.block_m, p.recv.device)
        moe.launch_grouped_gemm(moe.grouped_kernel(config), p.recv, p.w, out, tables[config.block_m], config)

    return TuneTarget(launch, out, p.references[OUT], lambda: moe.segment_matmuls(d, p.recv, p.w, out),
                      2.0 * d.rows * d.hidden * d.ffn)


def tune(spec: BenchSpec, ctx: BenchWorld, candidates: Sequence[GemmConfig], warmup: int = 3,
         iters: int = 20, rounds: int = 1) -> tuple[list[Trial], float, float]:
    """Every candidate's trial, cuBLAS's time (ms, max over ranks) and the
    GEMM's flop count per rank. Every candidate is checked first; then the
    checked ones and cuBLAS are timed round-robin in ``rounds`` rounds of
    ``warmup`` + ``iters`` launches (as overlap-bench's rows, bench/runner.py),
    so drift in GPU speed during the tuning does not pick the winner. A
    candidate's time is the median over all its timed launches, maximum
    over ranks."""
    t = target(spec)
    statuses: list[str] = []
    for config in candidates:
        mine = _check(config, t, ctx)
        statuses.append(next((s for s in ctx.gather_objects(mine) if s != "ok"), "ok"))
    timed = [c for c, status in zip(candidates, statuses) if status == "ok"]
    runs: list[Callable[[], None]] = [functools.partial(t.launch, c) for c in timed] + [t.cublas]
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for run, mine in zip(runs, times):
            ctx.barrier()
            mine += time_run(run, ctx.device, warmup, iters).times
    medians = [max(x[0] for x in ctx.gather_floats([statistics.median(mine)])) for mine in times]
    by_config = dict(zip(timed, medians))
    trials = [Trial(c, by_config[c], "ok") if status == "ok" else Trial(c, None, status)
              for c, status in zip(candidates, statuses)]
    return trials, medians[-1], t.flops


def _check(config: GemmConfig, t: TuneTarget, ctx: BenchWorld) -> str:
    try:
        poison(t.output)
        t.launch(config)
        ctx.sync()
    except Exception as err:  # a config that does not compile or launch here (shared memory, TMA limits)
        return f"n/a: {type(err).__name__}: {str(err).splitlines()[0][:120] if str(err) else ''}"
    result = check_result(t.output, t.reference)
    return "ok" if result.ok else f"WRONG: {result.reason}"


def best(trials: Sequence[Trial]) -> Trial | None:
    timed = [t for t in trials if t.ms is not None]
    return min(timed, key=lambda t: t.ms or 0.0) if timed else None


def format_trials(shape: Shape, world: int, trials: Sequence[Trial], cublas_ms: float, flops: float) -> str:
    size = (f"local {'x'.join(map(str, shape.local(world).gemm))}" if shape.workload in GEMM_WORKLOADS
            else f"{flops / 1e12:.2f} TFLOP per rank")
    lines = [f"-- Triton GEMM tuning: {shape.workload} {shape.label(world)} ({size}) --",
             f"{'config':<34}  {'ms':>8}  {'TFLOP/s':>8}  {'% cuBLAS':>8}  status"]
    winner = best(trials)
    for t in [*trials, Trial(GPU_DEFAULT, cublas_ms, "cuBLAS (torch.matmul)")]:
        label = "cuBLAS" if t.status.startswith("cuBLAS") else t.config.text()
        if t.ms is None:
            lines.append(f"{label:<34}  {'-':>8}  {'-':>8}  {'-':>8}  {t.status}")
            continue
        mark = "  <- best" if t is winner else ""
        lines.append(f"{label:<34}  {t.ms:8.3f}  {flops / t.ms / 1e9:8.1f}  {100 * cublas_ms / t.ms:7.1f}%  "
                     f"{t.status}{mark}")
    return "\n".join(lines)


def cache_key(shape: Shape, world: int, device: str, dtype: str = autotune.DEFAULT_DTYPE) -> str:
    base = f"gemm|{shape.workload}|{shape.key}|{world}|{device}"
    return base if dtype == autotune.DEFAULT_DTYPE else f"{base}|{dtype}"


def record(shape: Shape, world: int, device: str, trial: Trial, cublas_ms: float, path: str | None = None,
           dtype: str = autotune.DEFAULT_DTYPE) -> str:
    entries = autotune.load_cache(path)
    entries[cache_key(shape, world, device, dtype)] = {
        "config": dataclasses.asdict(trial.config), "ms": trial.ms, "cublas_ms": cublas_ms, "measured": time.time()}
    return autotune.save_cache(entries, path)


def tuned_config(shape: Shape, world: int, device: str, path: str | None = None,
                 dtype: str = autotune.DEFAULT_DTYPE) -> GemmConfig | None:
    """The cached winner for this situation, or None."""
    entry = autotune.load_cache(path).get(cache_key(shape, world, device, dtype))
    if entry is None:
        return None
    try:
        return GemmConfig(**entry["config"])
    except (KeyError, TypeError, ValueError) as err:
        raise autotune.AutotuneError(f"autotune cache entry {cache_key(shape, world, device, dtype)} is not a GEMM "
                                     f"config: {err}") from err
