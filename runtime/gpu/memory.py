"""Symmetric memory of the GPU World: buffers peers read and write, peer
views of them, each launch configuration's signal pad, and the ce
reduce-scatter's staging buffers.

Every allocation here is collective (``symm_mem.empty`` + ``rendezvous``):
all ranks must make the same allocations in the same order, which holds
because every rank launches the same configurations in the same order.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu.errors import GpuWorldError
from syncopate.runtime.gpu.flags import FLAG_CAPACITY
from syncopate.runtime.staging import StagingLayout


class SymmetricMemory:
    """The memory half of :class:`~syncopate.runtime.gpu.world.GpuWorld`
    (a mixin: the world holds the state below and the process group)."""

    rank: int
    device: torch.device
    group: Any
    spin_limit: int
    comm_programs: int
    handles: dict[int, Any]  # buffer address -> (symmetric memory handle, allocated shape)
    peer_views: dict[tuple, torch.Tensor]  # (address, peer, dtype) -> the peer's buffer
    staging: dict[tuple, torch.Tensor]  # (pad address, shape, dtype) -> staging buffer
    warned: set[tuple]
    staging_warn_bytes: int
    barrier: Callable[[], None]  # the process group's barrier

    def symmetric(self, source: torch.Tensor) -> torch.Tensor:
        """A symmetric buffer shaped like ``source`` (contiguous, not filled)."""
        import torch.distributed._symmetric_memory as symm_mem

        buf = symm_mem.empty(tuple(source.shape), dtype=source.dtype, device=self.device)
        self.handles[buf.data_ptr()] = (symm_mem.rendezvous(buf, self.group.group_name), tuple(buf.shape))
        for key in [k for k in self.peer_views if k[0] == buf.data_ptr()]:  # an earlier buffer at this address
            del self.peer_views[key]
        return buf

    def peer_view(self, buf: torch.Tensor, peer: int, what: str = "tensor") -> torch.Tensor:
        """The symmetric buffer that starts at ``buf`` (whole, as allocated:
        ``buf`` may be a view of its first rows), as seen on ``peer``."""
        entry = self.handles.get(buf.data_ptr())
        if entry is None:
            raise GpuWorldError(
                f"'{what}' is not a symmetric buffer (allocate it with GpuWorld.symmetric); the ce and sm backends "
                "read it from peers (backend=nccl does not need one)"
            )
        key = (buf.data_ptr(), peer, buf.dtype)
        view = self.peer_views.get(key)
        if view is None:
            handle, shape = entry
            view = self.peer_views[key] = handle.get_buffer(peer, shape, buf.dtype)
        return view

    def new_sync_state(self, size: int) -> SyncState:
        """A fresh signal pad (symmetric, zeroed) and epoch word. Each launch
        configuration (program, grid, sizes) gets its own, so its epoch counts
        exactly its launches: a produced chunk is complete at ``epoch * tiles``
        only if every launch on that pad had the same tiles."""
        if size > FLAG_CAPACITY // 2:
            raise GpuWorldError(f"the plans need {size} flags; the signal pad holds {FLAG_CAPACITY // 2}")
        pad = self.symmetric(torch.empty(FLAG_CAPACITY, dtype=torch.int32))
        pad.zero_()
        torch.cuda.synchronize(self.device)
        self.barrier()
        zeros = torch.zeros(5, dtype=torch.int32, device=self.device)
        return SyncState(pad, zeros[:1], zeros[1:], self.spin_limit, self.comm_programs)

    def staging_for(self, sync: SyncState, layout: StagingLayout, out: torch.Tensor) -> torch.Tensor:
        """The staging buffer of the configuration whose pad is ``sync``, for
        ``layout`` and output ``out``; the first call allocates it
        (symmetric: collective)."""
        key = (sync.flags.data_ptr(), layout.shape(out), out.dtype)
        if key not in self.staging:
            if torch.cuda.is_current_stream_capturing():
                raise GpuWorldError("a reduce-scatter configuration's first launch allocates its staging buffer "
                                    "and cannot be captured: launch it once eagerly before capturing a CUDA graph")
            self.staging[key] = self.symmetric(torch.empty(layout.shape(out), dtype=out.dtype))
            held = sum(b.numel() * b.element_size() for b in self.staging.values())
            if held > self.staging_warn_bytes and ("staging",) not in self.warned:
                self.warned.add(("staging",))
                warnings.warn(f"rank {self.rank}: the ce reduce-scatter staging buffers of {len(self.staging)} launch "
                              f"configurations hold {held / 2**30:.1f} GiB of symmetric memory and are kept for the "
                              "process's life (one per configuration: program, grid and sizes); launch fewer "
                              "configurations or use backend=nccl", RuntimeWarning, stacklevel=4)
        return self.staging[key]
