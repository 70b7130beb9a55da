"""Run a workload fused on simulated ranks and compare with the unfused reference.

Reference: the collective done with torch on every rank's inputs, then the
original kernel through the workload's own ``launch``. Fused: the same
``launch`` with the fused kernel, on buffers the simulated world fills chunk
by chunk while the kernel runs (runtime/world.py).
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any

import torch

from syncopate.dialects.chunk import PlanOp
from syncopate.ir import deps
from syncopate.passes.chunk_dependency_analysis import CONSUMED
from syncopate.runtime.fused import FusedKernel, FusedProgram, compile_fused
from syncopate.runtime.workload import Workload, WorkloadError, with_world
from syncopate.runtime.world import SimWorld, rows

ATOL = RTOL = 1e-4


@dataclass
class RankResult:
    rank: int
    max_error: float
    ok: bool
    polls: int


def compile_workload(workload: Workload, world: int, pipeline: str = "overlap",
                     plan_specs: list[str] | None = None) -> FusedProgram:
    """Fuse the workload's PLANS (or ``plan_specs``, ``world=`` added where
    missing) into its KERNEL, read from the file that defines it (the
    workload file, or the module it imports KERNEL from)."""
    fn = workload.kernel
    while not inspect.isfunction(fn) and hasattr(fn, "fn"):  # autotune/heuristics wrap the jit function
        fn = fn.fn
    name = getattr(fn, "__name__", None)
    if name is None:
        raise WorkloadError(f"{workload.path}: KERNEL is not a @triton.jit function")
    try:
        source = inspect.getsourcefile(fn) or workload.path
    except TypeError:  # not a Python function
        source = workload.path
    specs = [with_world(s, world) for s in plan_specs] if plan_specs else workload.plan_specs(world)
    return compile_fused(source, name, specs, pipeline)


def _collective_arg(workload: Workload, plan: PlanOp) -> tuple[str, str, int]:
    """(kernel parameter, launch argument, dim) of a plan's tensor."""
    tensor = plan.tensors[0]
    param = tensor.param.data
    collectives = workload.collectives
    if param not in collectives:
        raise WorkloadError(
            f"{workload.path}: COLLECTIVES has no entry for '{param}', the parameter plan @{plan.sym_name.data} moves "
            f"(COLLECTIVES = {collectives})"
        )
    dim = plan.chunks[0].dim.value.data
    return param, collectives[param], dim


def _receive_buffers(plan: PlanOp, sends: list[torch.Tensor], dim: int) -> list[torch.Tensor]:
    """All-to-all with torch: rank r receives, from each source s in order, the
    block s's send buffer holds for r."""
    w = plan.world_size
    if plan.splits is None:
        raise WorkloadError(f"all-to-all plan @{plan.sym_name.data} has no splits")
    matrix = deps.split_matrix(plan)
    for s in range(w):
        if sum(matrix[s]) != sends[s].shape[dim]:
            raise WorkloadError(
                f"rank {s}'s all-to-all send buffer has {sends[s].shape[dim]} rows along dim {dim}, "
                f"the plan's splits say {sum(matrix[s])}"
            )
    out = []
    for r in range(w):
        blocks = [rows(sends[s], dim, sum(matrix[s][:r]), sum(matrix[s][:r + 1])) for s in range(w)]
        out.append(torch.cat(blocks, dim=dim))
    return out


def _error(a: torch.Tensor, b: torch.Tensor) -> float:
    if a.shape != b.shape:
        return math.inf
    diff = (a.double() - b.double()).abs()
    if torch.isnan(diff).any():
        return math.nan
    return float(diff.max()) if diff.numel() else 0.0


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and bool(torch.allclose(a, b, atol=ATOL, rtol=RTOL))


def run_simulated(workload: Workload, world: int, order: str = "plan", seed: int = 0,
                  program: FusedProgram | None = None, pipeline: str = "overlap", **sim_options: Any) -> list[RankResult]:
    """Fused vs reference on every rank; never raises on a mismatch (see
    ``ok``). ``sim_options`` go to :class:`SimWorld` (spin_limit, comm_programs, lost)."""
    program = program or compile_workload(workload, world, pipeline)
    plans = program.plans
    inputs = [workload.make_inputs(r, world, seed) for r in range(world)]
    ref_inputs = [dict(i) for i in inputs]
    sources: list[dict[str, torch.Tensor]] = [{} for _ in range(world)]
    produced: list[tuple[PlanOp, str, int]] = []
    for plan in plans:
        param, arg, dim = _collective_arg(workload, plan)
        if plan.collective in CONSUMED:
            parts = [i[arg] for i in inputs]
            if plan.collective == "all-to-all":
                full = _receive_buffers(plan, parts, dim)
            else:
                full = [torch.cat(parts, dim=dim)] * world
            for r in range(world):
                ref_inputs[r][arg] = full[r]
                sources[r][param] = full[r]
        else:
            produced.append((plan, param, dim))
    original = workload.kernel
    references = [workload.launch(original, **ref_inputs[r]) for r in range(world)]

    sim = SimWorld(world, order, seed, **sim_options)
    outputs = []
    for r in range(world):
        fused_inputs = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in ref_inputs[r].items()}
        kernel = FusedKernel(program, original, sim.rank(r, sources[r]))
        outputs.append(workload.launch(kernel, **fused_inputs))

    results = []
    for r in range(world):
        polls = sum(info.polls for info in sim.launches.get(r, []))
        if not produced:
            err = _error(outputs[r], references[r])
            results.append(RankResult(r, err, _close(outputs[r], references[r]), polls))
            continue
        errs, ok = [], True
        for plan, _param, dim in produced:
            name = plan.sym_name.data
            chunks = [c for c in sim.launches[r][-1].chunks[name] if c.is_local and c.dst == r]
            total = sum(references)
            got = sim.reduced.get((name, r))
            for c in chunks:
                want = rows(total, dim, c.lo, c.hi)
                have = rows(got, dim, c.lo, c.hi) if got is not None else torch.full_like(want, math.nan)
                errs.append(_error(have, want))
                ok = ok and _close(have, want)
        results.append(RankResult(r, max(errs, key=lambda e: math.inf if math.isnan(e) else e), ok, polls))
    return results
