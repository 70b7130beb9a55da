"""Run a workload fused on simulated ranks and compare with the unfused reference.

Reference: the collective done with torch on every rank's inputs, then the
original kernel through the workload's own ``launch``. Fused: the same
``launch`` with the fused kernel, on buffers the simulated world fills chunk
by chunk while the kernel runs (runtime/sim/world.py).
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any

import torch

from syncopate.dialects.chunk import PlanOp, extent_value
from syncopate.ir.analysis import deps
from syncopate.ir.contract import CONSUMED
from syncopate.runtime.abi import AbiError
from syncopate.runtime.fused import FusedKernel, FusedProgram, compile_fused
from syncopate.runtime.push import pushed_plans
from syncopate.runtime.sim import descriptor_atomics
from syncopate.runtime.sim.delivery import SimulationError
from syncopate.runtime.rows import rows
from syncopate.runtime.sim.world import SimWorld
from syncopate.runtime.harness.workload import Workload, WorkloadError, with_world

ATOL = RTOL = 1e-4
RUNTIME_ERRORS = (SimulationError, AbiError, WorkloadError)  # raised by the runtime through the user's launch


class RunError(Exception):
    """Misuse found before any comparison: a plan that does not fit the world
    or the inputs it runs with, a pipeline that left a plan unsynchronised."""


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
    source, name = _kernel_source(workload)
    specs = [with_world(s, world) for s in plan_specs] if plan_specs else workload.plan_specs(world)
    return compile_fused(source, name, specs, pipeline)


def _kernel_source(workload: Workload) -> tuple[str, str]:
    """(file that defines KERNEL, its name)."""
    fn = workload.kernel
    while not inspect.isfunction(fn) and hasattr(fn, "fn"):  # autotune/heuristics wrap the jit function
        fn = fn.fn
    name = getattr(fn, "__name__", None)
    if name is None:
        raise WorkloadError(f"{workload.path}: KERNEL is not a @triton.jit function")
    try:
        return inspect.getsourcefile(fn) or workload.path, name
    except TypeError:  # not a Python function
        return workload.path, name


def reference_kernel(workload: Workload) -> Any:
    """The kernel the reference runs: KERNEL itself, unless it uses block
    pointers and this Triton removed them (3.9 raises at
    ``tl.make_block_ptr``). Then KERNEL through the frontend and emitter with
    no pass: block pointers lowered to pointer arithmetic
    (ir/frontend/block_pointers.py), nothing else changed. That lowering is
    checked against torch references on the CPU and against the original
    kernel on GPUs (test/unit/corpus/test_roundtrip.py, test/e2e/test_roundtrip_gpu.py)."""
    import triton.language as tl

    if hasattr(tl, "advance"):
        return workload.kernel
    source, name = _kernel_source(workload)
    with open(source) as f:
        if "make_block_ptr" not in f.read():
            return workload.kernel
    return compile_fused(source, name, [], pipeline="").jit


def check_synchronised(program: FusedProgram, pipeline: str) -> None:
    """Every plan must reach the fused kernel's ABI (a wait, signal, copy or
    reduction table): a pipeline that never lowers a plan (``-p ''``,
    ``-p chunk-dependency-analysis``) or drops its waits would run an
    unsynchronised kernel. (overlap-run checks this; tests that run such
    kernels on purpose call compile_workload directly.)"""
    tables = program.abi["tables"].data if "tables" in program.abi else ()
    lowered = {e.data["plan"].data for e in tables}
    missing = [p.sym_name.data for p in program.plans if p.sym_name.data not in lowered]
    if missing:
        raise RunError(f"pipeline '{pipeline}' leaves plan(s) {', '.join('@' + m for m in missing)} without waits or "
                       "signals in the fused kernel, which would then race; use a pipeline that synchronises every plan, "
                       "e.g. 'overlap'")


def check_world(program: FusedProgram, world: int, where: str) -> None:
    """Each plan's world must be the world it runs in."""
    for plan in program.plans:
        if plan.world_size != world:
            raise RunError(f"plan @{plan.sym_name.data} is for world={plan.world_size}, but it runs on {world} "
                           f"{where}; the plan's world must equal the number of ranks")


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
    symbolic = [str(v) for v in map(extent_value, plan.splits.data) if not _is_int(v)]  # type: ignore[arg-type]
    if symbolic:
        raise RunError(
            f"all-to-all plan @{plan.sym_name.data} needs splits=: without it, its splits are cut from its "
            f"tensor's size ({', '.join(symbolic[:4])}{', ...' if len(symbolic) > 4 else ''}), and running it needs "
            f"the rows each rank sends each other rank; give splits= with W = {w} or W*W = {w * w} integers "
            "(a workload's PLANS(world) can compute them)"
        )
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


def _is_int(extent: object) -> bool:
    try:
        int(extent)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return False
    return True


def _cut(workload: Workload, plan: PlanOp, parts: list[Any], arg: str, dim: int) -> list[tuple[int, int]]:
    """(start, size) of each rank's all-gather input in the gathered tensor."""
    cut, start = [], 0
    for r, part in enumerate(parts):
        if not isinstance(part, torch.Tensor) or part.dim() <= dim:
            raise WorkloadError(f"{workload.path}: make_inputs(rank={r}, ...)['{arg}'] must be a tensor with a dim {dim} "
                                f"(plan @{plan.sym_name.data} gathers it along dim {dim}), got "
                                f"{tuple(part.shape) if isinstance(part, torch.Tensor) else type(part).__name__}")
        cut.append((start, part.shape[dim]))
        start += part.shape[dim]
    return cut


def _error(a: torch.Tensor, b: torch.Tensor) -> float:
    """The largest difference; NaN where ``a`` has a NaN (or an infinity)
    that the reference ``b`` does not have at that element: the poison of an
    unwaited read. The reference's own NaNs and infinities (from NaN or
    infinite inputs) match the same values."""
    if a.shape != b.shape:
        return math.inf
    a, b = a.double(), b.double()
    diff = (a - b).abs().masked_fill((torch.isnan(a) & torch.isnan(b)) | (torch.isinf(a) & (a == b)), 0.0)
    if torch.isnan(diff).any():
        return math.nan
    return float(diff.max()) if diff.numel() else 0.0


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and bool(torch.allclose(a, b, atol=ATOL, rtol=RTOL, equal_nan=True))


def _worst(errors: list[float]) -> float:
    return max(errors, key=lambda e: math.inf if math.isnan(e) else e, default=0.0)


def outputs_of(workload: Workload, value: Any) -> list[torch.Tensor]:
    """What ``launch`` returned, as a list of tensors (a tensor, or a tuple,
    list or dict of them: each is compared)."""
    items = list(value.values()) if isinstance(value, dict) else list(value) if isinstance(value, (tuple, list)) \
        else [value]
    bad = [type(v).__name__ for v in items if not isinstance(v, torch.Tensor)]
    if bad or not items:
        raise WorkloadError(f"{workload.path}: launch returned {type(value).__name__}"
                            f"{' holding ' + ', '.join(sorted(set(bad))) if bad else ''}; it must return its output "
                            "tensor, or a tuple, list or dict of tensors")
    return items


def _launch(workload: Workload, kernel: Any, inputs: dict[str, Any], what: str) -> list[torch.Tensor]:
    return outputs_of(workload, workload.call_launch(kernel, inputs, what, RUNTIME_ERRORS + (RunError,)))


def run_simulated(workload: Workload, world: int, order: str = "plan", seed: int = 0,
                  program: FusedProgram | None = None, pipeline: str = "overlap", **sim_options: Any) -> list[RankResult]:
    """Fused vs reference on every rank; never raises on a mismatch (see
    ``ok``); raises :class:`RunError`, :class:`WorkloadError`,
    :class:`AbiError` or :class:`SimulationError` on misuse or a kernel that
    cannot be right. ``sim_options`` go to :class:`SimWorld` (spin_limit,
    comm_programs, lost)."""
    program = program or compile_workload(workload, world, pipeline)
    check_world(program, world, "simulated ranks")
    descriptor_atomics.install()  # the interpreter has no desc.atomic_add of its own
    plans = program.plans
    inputs = [workload.make_inputs(r, world, seed) for r in range(world)]
    ref_inputs = [dict(i) for i in inputs]
    sources: list[dict[str, torch.Tensor]] = [{} for _ in range(world)]
    produced: list[tuple[PlanOp, str, int]] = []
    shards: dict[str, tuple[str, list[tuple[int, int]]]] = {}
    for plan in plans:
        param, arg, dim = _collective_arg(workload, plan)
        if plan.collective in CONSUMED:
            missing = [r for r in range(world) if arg not in inputs[r]]
            if missing:
                raise WorkloadError(f"{workload.path}: COLLECTIVES maps '{param}' to '{arg}', which "
                                    f"make_inputs(rank={missing[0]}, ...) does not return")
            parts = [i[arg] for i in inputs]
            if plan.collective == "all-to-all":
                full = _receive_buffers(plan, parts, dim)
            else:
                shards[param] = (arg, _cut(workload, plan, parts, arg, dim))
                full = [torch.cat(parts, dim=dim)] * world
            for r in range(world):
                ref_inputs[r][arg] = full[r]
                sources[r][param] = full[r]
        else:
            produced.append((plan, param, dim))
    original = workload.kernel
    reference = reference_kernel(workload)
    references = [_launch(workload, reference, ref_inputs[r], "KERNEL") for r in range(world)]

    sim = SimWorld(world, order, seed, shards=shards, **sim_options)
    outputs = []
    for r in range(world):
        fused_inputs = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in ref_inputs[r].items()}
        kernel = FusedKernel(program, original, sim.rank(r, sources[r]))
        outputs.append(_launch(workload, kernel, fused_inputs, "the fused kernel"))

    results = []
    for r in range(world):
        polls = sum(info.polls for info in sim.launches.get(r, []))
        if not produced:
            if len(outputs[r]) != len(references[r]):
                raise WorkloadError(f"{workload.path}: launch returned {len(references[r])} tensor(s) with the original "
                                    f"kernel and {len(outputs[r])} with the fused one on rank {r}")
            errs = [_error(o, ref) for o, ref in zip(outputs[r], references[r])]
            ok = all(_close(o, ref) for o, ref in zip(outputs[r], references[r]))
            results.append(RankResult(r, _worst(errs), ok, polls))
            continue
        if any(len(ref) != 1 for ref in references):
            raise WorkloadError(f"{workload.path}: launch returns {len(references[0])} tensors; with a "
                                "reduce-scatter plan it must return the one tensor the plan reduces")
        if r not in sim.launches:
            raise RunError(f"rank {r}'s launch never ran the fused kernel (launch must call the kernel it is given)")
        errs, ok = [], True
        for plan, _param, dim in produced:
            name = plan.sym_name.data
            # a reduce-scatter leaves each rank its own rows summed; an all-reduce every owner's summed rows (its
            # gather phase copies them; the simulation reads them where the owner summed them)
            everyone = plan.collective == "all-reduce"
            chunks = [c for c in sim.launches[r][-1].chunks[name] if c.is_local and (everyone or c.dst == r)]
            total = sum(ref[0] for ref in references)
            pushed = name in pushed_plans(program)  # every rank summed every row itself: check rank r's own
            for c in chunks:
                got = sim.reduced.get((name, r if pushed else c.dst))
                want = rows(total, dim, c.lo, c.hi)
                have = rows(got, dim, c.lo, c.hi) if got is not None else torch.full_like(want, math.nan)
                errs.append(_error(have, want))
                ok = ok and _close(have, want)
        results.append(RankResult(r, _worst(errs), ok, polls))
    return results
