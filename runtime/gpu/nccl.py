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
from typing import TYPE_CHECKING, Any

import torch

from syncopate.dialects.chunk import PlanOp
from syncopate.ir import deps
from syncopate.ir.deps import ConcreteChunk
from syncopate.runtime.gpu.errors import GpuWorldError
from syncopate.runtime.staging import owner_regions
from syncopate.runtime.world import rows

if TYPE_CHECKING:
    from syncopate.runtime.gpu.world import GpuWorld


def deliver(w: GpuWorld, plan: PlanOp, chunks: list[ConcreteChunk], params: Mapping[str, Any],
            sources: Mapping[str, torch.Tensor]) -> None:
    """A consumed plan: one ``broadcast`` from each owner of rows (in the
    owners' order, the same on every rank), or one ``all_to_all_single``."""
    import torch.distributed as dist

    if plan.collective == "all-to-all":
        param = plan.tensors[0].param.data
        send, recv = sources.get(param), params[param]
        if send is None:
            raise GpuWorldError(f"all-to-all parameter '{param}' needs this rank's send buffer (context(sources=...))")
        split = deps.split_matrix(plan)
        dist.all_to_all_single(recv, send, [split[s][w.rank] for s in range(w.world)], split[w.rank],
                               group=w.nccl_group)
        return
    for region in owner_regions(chunks):
        view = rows(params[region.param], region.dim, region.lo, region.hi)
        packed = view if view.is_contiguous() else view.contiguous()  # NCCL moves contiguous memory
        dist.broadcast(packed, src=region.dst, group=w.nccl_group)
        if packed is not view:
            view.copy_(packed)


def reduce(w: GpuWorld, regions: list[ConcreteChunk], params: Mapping[str, Any],
           wait_tiles: Callable[[ConcreteChunk], None]) -> None:
    """A produced plan: one ``reduce`` of each owner's rows to the owner,
    once this rank's tiles announced its partial of them."""
    import torch.distributed as dist

    for region in regions:
        wait_tiles(region)
        view = rows(params[region.param], region.dim, region.lo, region.hi)
        packed = view if view.is_contiguous() else view.contiguous()
        dist.reduce(packed, dst=region.dst, group=w.nccl_group)
        if packed is not view and region.dst == w.rank:
            view.copy_(packed)
