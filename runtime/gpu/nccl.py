"""The nccl backend: chunks moved by NCCL collectives on the communication
stream (no symmetric memory: the portable fallback).

Every rank issues the same collectives in the same order, so they are
self-synchronising: a rank's rows are read only once it entered the
collective, after its compute stream wrote them, and the launch's compute
stream waits for the communication stream before the caller may write the
next launch's rows. No readiness or release token is needed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import torch

from syncopate.dialects.chunk import PlanOp
from syncopate.ir.analysis import deps
from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.runtime.gpu import direct_collectives
from syncopate.runtime.gpu.errors import GpuWorldError
from syncopate.runtime.rows import rows
from syncopate.runtime.staging import owner_regions

if TYPE_CHECKING:
    from syncopate.runtime.gpu.world import GpuWorld


Collective = Callable[[], None]


def plan_delivery(w: GpuWorld, plan: PlanOp, chunks: list[ConcreteChunk], params: Mapping[str, Any],
                  sources: Mapping[str, torch.Tensor]) -> tuple[Collective, ...]:
    """A consumed plan's collectives, built once per launch key: one
    ``broadcast`` from each owner of rows (in the owners' order, the same on
    every rank), or one ``all_to_all_single``."""
    import torch.distributed as dist

    if plan.collective == "all-to-all":
        param = plan.tensors[0].param.data
        send, recv = sources.get(param), params[param]
        if send is None:
            raise GpuWorldError(f"all-to-all parameter '{param}' needs this rank's send buffer (context(sources=...))")
        split = deps.split_matrix(plan)
        inward, outward = [split[s][w.rank] for s in range(w.world)], split[w.rank]
        return (lambda: dist.all_to_all_single(recv, send, inward, outward, group=w.nccl_group),)
    return _broadcasts(w, owner_regions(chunks), params)


def plan_gather_reduced(w: GpuWorld, plan: PlanOp, chunks: list[ConcreteChunk],
                        params: Mapping[str, Any]) -> tuple[Collective, ...]:
    """An all-reduce's second phase, built once per launch key: every
    owner's summed rows to every rank. Where the owners' rows are equal,
    dim-0 blocks of a contiguous tensor in rank order (the rows rule with
    a row count the group size divides), one in-place
    ``all_gather_into_tensor``; else one ``broadcast`` per owner region.
    An owner's adjacent chunks count as one region (``chunks_per_rank``
    splits the rows, not the gather). The all-gather is the backend's call
    itself (runtime/gpu/direct_collectives.py): it is the host work left in
    a replayed all-reduce's launch."""
    regions = _joined(owner_regions(chunks))
    out = params[regions[0].param] if regions else None
    sizes = {r.hi - r.lo for r in regions}
    one_block_each = [r.dst for r in regions] == list(range(w.world))
    if (out is not None and out.is_contiguous() and one_block_each and len(sizes) == 1
            and all(r.dim == 0 and r.lo == i * (r.hi - r.lo) for i, r in enumerate(regions))
            and regions[-1].hi == out.shape[0]):
        mine = rows(out, 0, regions[w.rank].lo, regions[w.rank].hi)
        return (lambda: direct_collectives.all_gather_into(out, mine, w.nccl_group),)
    return _broadcasts(w, regions, params)


def _broadcasts(w: GpuWorld, regions: list[ConcreteChunk], params: Mapping[str, Any]) -> tuple[Collective, ...]:
    """One ``broadcast`` of each region's rows from its owner, in order."""
    import torch.distributed as dist

    return tuple(_on_rows(rows(params[r.param], r.dim, r.lo, r.hi),
                          lambda t, src=w.global_rank(r.dst): dist.broadcast(t, src=src, group=w.nccl_group), True)
                 for r in regions)


def _joined(regions: list[ConcreteChunk]) -> list[ConcreteChunk]:
    """``regions`` (by owner, then row) with each owner's adjacent regions
    of one tensor and dim joined: an owner's rows split into several
    chunks still go as one block (one collective each, not one per chunk)."""
    joined: list[ConcreteChunk] = []
    for r in regions:
        last = joined[-1] if joined else None
        if last is not None and (last.dst, last.param, last.dim, last.hi) == (r.dst, r.param, r.dim, r.lo):
            joined[-1] = replace(last, hi=r.hi)
        else:
            joined.append(r)
    return joined


def plan_reduce(w: GpuWorld, regions: list[ConcreteChunk], params: Mapping[str, Any]) -> tuple[Collective, ...]:
    """A produced plan's collectives, one per owner's region: ``reduce`` of
    this rank's partial rows to the owner (each issued once this rank's
    tiles announced them; see reduce_scatter.py)."""
    import torch.distributed as dist

    return tuple(_on_rows(rows(params[r.param], r.dim, r.lo, r.hi),
                          lambda t, dst=w.global_rank(r.dst): dist.reduce(t, dst=dst, group=w.nccl_group),
                          r.dst == w.rank)
                 for r in regions)


def _on_rows(view: torch.Tensor, collective: Callable[[torch.Tensor], None], receives: bool) -> Collective:
    """``collective`` on ``view``; NCCL moves contiguous memory, so a strided
    view goes through a contiguous copy (copied back where this rank receives)."""
    if view.is_contiguous():
        return lambda: collective(view)

    def packed() -> None:
        tmp = view.contiguous()
        collective(tmp)
        if receives:
            view.copy_(tmp)

    return packed
