"""Launches the GPU World refuses or warns about, and why.

Each function is a pure check on a launch's evaluated plans (no device
work); :func:`refusal` runs them in order when a configuration's tables are
built. The hangs they guard against are described in
docs/runtime-protocol.md ("What can hang").
"""

from __future__ import annotations

from typing import Any

import torch

from syncopate.dialects.chunk import PlanOp
from syncopate.ir.analysis import deps
from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.ir.contract import CONSUMED, AbiKey
from syncopate.runtime.abi import LaunchPlan, epilogue_order_error, fused_reductions
from syncopate.runtime.fused import FusedProgram
from syncopate.runtime.gpu.errors import GpuWorldError
from syncopate.runtime.gpu.reduce_scatter import staged_plans

NCCL_STARVATION = (
    "rank {rank}: the first tile this launch runs waits for a chunk that NCCL delivers ({chunk}); tiles that spin "
    "on NCCL chunks hold their SMs while NCCL's kernels need one, so on a grid larger than the GPU this launch "
    "can hang. Use backend=ce or sm, or a local-first tile order (order=arrival) with footprints the analysis "
    "can bound."
)


NCCL_PERSISTENT = (
    "rank {rank}: this persistent kernel's programs run until every tile is done and spin on chunks NCCL "
    "delivers ({chunk}); NCCL's kernels need an SM, so a grid that fills the GPU can hang in any tile order. "
    "Use backend=ce or sm for persistent kernels."
)


def first_tile(launch: LaunchPlan, program: FusedProgram) -> tuple[int, int, int]:
    """The program id whose work runs first: program 0 after tile-reorder's
    mapping (``arrival``: the lookup table; ``rotate``: the shift)."""
    abi = program.abi
    if AbiKey.TILE_ORDER in abi:
        tiles = deps.grid_tiles(launch.tiles)
        return tiles[deps.tile_order(launch.graph, launch.tiles, abi[AbiKey.GROUP].value.data)[0]]
    if AbiKey.ROTATE in abi:
        first = [0, 0, 0]
        first[abi[AbiKey.AXIS].value.data] = deps.rotation(launch.graph, abi[AbiKey.AXIS].value.data)
        return (first[0], first[1], first[2])
    return (0, 0, 0)


def nccl_starvation_risk(launch: LaunchPlan, first: tuple[int, int, int], rank: int) -> str | None:
    """Why a launch whose first tile (``first``) spins on an NCCL chunk may
    hang, or None. A tile whose footprint the host cannot evaluate
    (``exact=False``) counts as waiting on every chunk of its tensor. A
    persistent kernel that waits on any NCCL chunk is always at risk: its
    programs never hand their SMs back between tiles. Reduce-scatter chunks
    are produced, not waited on, so they never count."""
    if launch.persistent:  # chunks its tiles wait on: those of gathered plans (a reduce-scatter's tiles never wait)
        remote = [c for name, cs in launch.chunks.items() if launch.plans[name].collective in CONSUMED for c in cs
                  if c.backend == "nccl" and not c.is_local and c.dst == rank]
        if remote:
            return NCCL_PERSISTENT.format(rank=rank, chunk=f"chunk {remote[0].id} of @{remote[0].plan}")
    if ("tile", first) not in launch.graph:
        return None
    for node in launch.graph.predecessors(("tile", first)):
        c = launch.graph.nodes[node]["chunk"]
        if c.backend == "nccl" and not c.is_local and c.dst == rank:
            return NCCL_STARVATION.format(rank=rank, chunk=f"chunk {c.id} of @{c.plan}")
    return None


def persistent_nccl_refusal(launch: LaunchPlan, risk: str | None, programs: int, sms: int) -> str | None:
    """Why a launch is refused instead of run, or None: a persistent kernel at
    risk (see :func:`nccl_starvation_risk`) whose programs fill every SM
    would hang for certain once a tile spins on an NCCL chunk, since no SM is
    ever handed back. With fewer programs than SMs it runs, with the warning."""
    if launch.persistent and risk is not None and programs >= sms:
        return f"{risk} Refused: its {programs} programs fill all {sms} SMs."
    return None


def epilogue_comm_sms(lanes: int) -> int:
    """SMs a launch that reduces in its epilogue must leave free: one per
    stream that spins while its tiles wait, i.e. the communication stream
    and each of its ``lanes`` ce lanes."""
    return 1 + lanes


def epilogue_reduction_refusal(program: FusedProgram, launch: LaunchPlan, programs: int, sms: int,
                               lanes: int = 1) -> str | None:
    """Why a kernel that reduces in its epilogue is refused, or None: a
    persistent kernel that leaves fewer than :func:`epilogue_comm_sms` SMs
    free. Its own tiles wait for partials that the peers' copies deliver
    once a one-program stream wait has seen the peers' tiles; the
    communication stream and each ce lane run such a wait, a persistent
    program takes a whole SM, and the GPU may place each wait on an SM of
    its own before every program started, leaving a GEMM program that never
    starts and so never sends its partials."""
    if not fused_reductions(program):
        return None
    free = epilogue_comm_sms(lanes)
    if launch.persistent and programs > sms - free:
        return (f"@{program.kernel.sym_name.data} reduces in its epilogue (fuse-peer-reduction) and its {programs} "
                f"persistent programs leave {max(sms - programs, 0)} of {sms} SMs free; the communication stream and "
                f"its {lanes} ce lane(s) each spin in a one-program wait that may take an SM of its own, and a "
                f"program that cannot start would never send its partials. Launch at most {sms - free} programs.")
    return None


def staged_reductions_refusal(launch: LaunchPlan) -> str | None:
    """Why a launch with more than one ce reduce-scatter plan is refused, or
    None: every plan's staging layout starts at the same pad word and plans
    of one output shape would share a staging buffer, so two such plans
    would mix each other's partials."""
    staged = staged_plans(launch)
    if len(staged) > 1:
        return (f"plans {', '.join('@' + n for n in staged)} are reduce-scatters on the ce backend; the GPU runtime "
                "stages one such plan per program. Use backend=nccl for all but one, or split the kernel.")
    return None


def refusal(program: FusedProgram, launch: LaunchPlan, risk: str | None, sms: int, lanes: int) -> str | None:
    """The first reason to refuse ``launch``, or None."""
    programs = launch.grid[0]
    return (staged_reductions_refusal(launch)
            or persistent_nccl_refusal(launch, risk, programs, sms)
            or epilogue_reduction_refusal(program, launch, programs, sms, lanes)
            or epilogue_order_error(program, launch))


def check_world(launch: LaunchPlan, world: int) -> None:
    """Every plan is for the process group's size."""
    if any(p.world_size != world for p in launch.plans.values()):
        sizes = sorted({p.world_size for p in launch.plans.values()})
        raise GpuWorldError(f"the plan is for world {sizes}, the process group has {world} ranks")


def check_backends(plan: PlanOp, chunks: list[ConcreteChunk]) -> None:
    """A plan's remote chunks are on known backends, and nccl is not mixed in
    (its collectives need every rank's chunks of the plan)."""
    backends = {c.backend for c in chunks if not c.is_local}
    if "nccl" in backends and len(backends) > 1:
        raise GpuWorldError(
            f"plan @{plan.sym_name.data} mixes nccl with {sorted(backends - {'nccl'})}: NCCL collectives need every "
            "rank's chunks of a plan on nccl"
        )
    if backends - {"ce", "sm", "nccl"}:
        raise GpuWorldError(f"plan @{plan.sym_name.data} has chunks without a backend: run select-backend (the overlap pipeline does)")


def check_tensor(t: Any, name: str) -> None:
    """A tensor a plan moves: on the GPU, contiguous (chunks move whole rows) and 16-byte aligned."""
    if not isinstance(t, torch.Tensor) or not t.is_cuda:
        raise GpuWorldError(f"parameter '{name}' must be a CUDA tensor")
    if not t.is_contiguous():
        raise GpuWorldError(f"parameter '{name}' must be contiguous: chunks are moved as whole rows")
    if t.data_ptr() % 16:
        raise GpuWorldError(f"parameter '{name}' is not 16-byte aligned")
