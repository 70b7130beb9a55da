"""The GPU World: one process per GPU (torchrun), torch.distributed (NCCL) and
torch's symmetric memory; the copy-engine backend for gathered tensors.

A gathered tensor lives in a symmetric buffer (``symm_mem.empty`` +
``rendezvous``): every rank writes its own shard into its own buffer, and a
chunk is pulled from the peer that owns its rows (``get_buffer``) by a peer
memcpy on a communication stream, followed by a stream write of the chunk's
flag (``stream_write_value32``, a stream memory operation that takes no SM,
so a kernel whose tiles spin on flags can never starve it). The fused kernel
runs on the compute stream at the same time. The copies go in this rank's
arrival order from the plan (local chunks first, then by step); pulling
from the owner makes ring and direct plans the same transfers in a
different order.

What exists: all-gather with the copy engine. Not yet: all-to-all (needs
the senders' offsets), the SM and NCCL backends, reduce-scatter on GPUs (the
consumer must wait on a peer's device flag from a stream), multi-node
(symmetric memory's NVSHMEM backend would slot in behind the same calls).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from syncopate.ir import deps
from syncopate.runtime.fused import FusedProgram
from syncopate.runtime.abi import LaunchPlan
from syncopate.runtime.world import rows


class GpuWorldError(Exception):
    """A setup problem the user must fix (world size, peer access, layout)."""


def _write_flag(flags: torch.Tensor, index: int, value: int) -> None:
    """Set ``flags[index] = value`` from the current stream without an SM."""
    from torch.distributed._symmetric_memory import _SymmetricMemory

    _SymmetricMemory.stream_write_value32(flags.view(torch.uint32), index, value)


@dataclass
class GpuWorld:
    """Rank, world size, symmetric buffers, signal pads, streams."""

    rank: int
    world: int
    device: torch.device
    group: Any
    comm_stream: torch.cuda.Stream
    flags: dict[int, torch.Tensor] = field(default_factory=dict)
    epoch: int = 0
    handles: dict[int, Any] = field(default_factory=dict)

    @classmethod
    def from_torchrun(cls) -> GpuWorld:
        import torch.distributed as dist

        if "RANK" not in os.environ:
            raise GpuWorldError("--gpu runs one process per GPU: launch with torchrun --nproc-per-node=W overlap-run ...")
        local = int(os.environ.get("LOCAL_RANK", "0"))
        if local >= torch.cuda.device_count():
            raise GpuWorldError(f"LOCAL_RANK {local} but only {torch.cuda.device_count()} GPUs are visible")
        torch.cuda.set_device(local)
        device = torch.device("cuda", local)
        if not dist.is_initialized():
            dist.init_process_group("nccl", device_id=device)
        rank, world = dist.get_rank(), dist.get_world_size()
        for peer in range(torch.cuda.device_count()):
            if peer != local and not torch.cuda.can_device_access_peer(local, peer):
                raise GpuWorldError(f"GPU {local} has no peer access to GPU {peer}; the copy-engine backend needs it")
        return cls(rank, world, device, dist.group.WORLD, torch.cuda.Stream(device))

    def symmetric(self, source: torch.Tensor) -> torch.Tensor:
        """A symmetric buffer shaped like ``source`` (contiguous)."""
        import torch.distributed._symmetric_memory as symm_mem

        buf = symm_mem.empty(tuple(source.shape), dtype=source.dtype, device=self.device)
        self.handles[buf.data_ptr()] = symm_mem.rendezvous(buf, self.group.group_name)
        return buf

    def peer_view(self, buf: torch.Tensor, peer: int) -> torch.Tensor:
        handle = self.handles.get(buf.data_ptr())
        if handle is None:
            raise GpuWorldError("a gathered tensor is not a symmetric buffer; the copy-engine backend needs one")
        return handle.get_buffer(peer, tuple(buf.shape), buf.dtype)

    def barrier(self) -> None:
        import torch.distributed as dist

        dist.barrier(device_ids=[self.device.index])

    def context(self) -> GpuRank:
        return GpuRank(self)


@dataclass
class GpuRank:
    world: GpuWorld

    def launch(self, program: FusedProgram, grid: tuple[int, ...], params: Mapping[str, Any],
               run: Callable[[dict[str, Any]], None]) -> None:
        w = self.world
        launch = LaunchPlan.build(program, params, grid, w.rank)
        plans, chunks = launch.plans, launch.chunks
        if any(p.world_size != w.world for p in plans.values()):
            sizes = sorted({p.world_size for p in plans.values()})
            raise GpuWorldError(f"the plan is for world {sizes}, the process group has {w.world} ranks")
        if any(p.collective != "all-gather" for p in plans.values()):
            raise GpuWorldError(
                "--gpu supports all-gather plans so far; reduce-scatter and all-to-all run on simulated ranks only"
            )
        total = launch.flag_count
        flags = w.flags.get(total)
        if flags is None:
            flags = w.flags[total] = torch.zeros(total, dtype=torch.int32, device=w.device)
        w.epoch += 1
        epoch = w.epoch
        transfers = []
        for name in plans:
            for c in chunks[name]:
                if c.dst != w.rank:
                    continue
                buf = params[c.param]
                _check_tensor(buf, c.param)
                if c.is_local:
                    continue
                transfers.append((deps.arrival_rank(c), c, buf, deps.owner(chunks[name], c)))
        transfers.sort(key=lambda t: (t[0], t[1].id))

        extra = launch.arguments(program, flags, epoch, w.device)

        compute = torch.cuda.current_stream(w.device)
        for name in plans:  # local chunks are in place (the caller wrote them before the barrier)
            for c in chunks[name]:
                if c.dst == w.rank and c.is_local:
                    _write_flag(flags, c.flag, epoch)
        w.comm_stream.wait_stream(compute)
        with torch.cuda.stream(w.comm_stream):
            for _key, c, buf, owner in transfers:
                source = w.peer_view(buf, owner)
                rows(buf, c.dim, c.lo, c.hi).copy_(rows(source, c.dim, c.lo, c.hi), non_blocking=True)
                _write_flag(flags, c.flag, epoch)
        run(extra)
        compute.wait_stream(w.comm_stream)


def _check_tensor(t: Any, name: str) -> None:
    if not isinstance(t, torch.Tensor) or not t.is_cuda:
        raise GpuWorldError(f"parameter '{name}' must be a CUDA tensor")
    if not t.is_contiguous():
        raise GpuWorldError(f"parameter '{name}' must be contiguous for peer copies")
    if t.data_ptr() % 16:
        raise GpuWorldError(f"parameter '{name}' is not 16-byte aligned")
