"""Symmetric memory of the GPU World: buffers peers read and write, peer
views of them, each launch configuration's signal pad, and the ce
reduce-scatter's staging buffers, with a bound on what launch
configurations hold.

Every allocation and free here is collective (``symm_mem.empty`` +
``rendezvous``; a free must not race a peer's writes): all ranks make the
same allocations and frees in the same order. That holds because every rank
launches the same configurations in the same order and the decisions below
depend only on that order.

The bound (docs/runtime-protocol.md, "Bounded symmetric memory"):

* signal pads: at most ``max_pads`` (64 KiB each), least recently launched
  evicted first;
* staging buffers: shared by every configuration of one size bucket (the
  staging tokens order all of a world's reduce-scatters through each
  owner's communication stream, so configurations may share slots), rows
  rounded up to a power of two; at most ``staging_bytes`` in all, least
  recently used evicted first (a lone buffer larger than the bound is
  allocated anyway, with a warning);
* a configuration captured in a CUDA graph is pinned: its pad and staging
  are never freed, since the graph holds their addresses;
* a free first synchronises the device and then every rank (barrier), so
  no launch in flight on any rank still touches the memory, and drops the
  launch tables that point into it.
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

PAD_BYTES = FLAG_CAPACITY * 4


def bucket_rows(rows: int) -> int:
    """Staging rows allocated for a layout ``rows`` wide: the next power of two."""
    return 1 << max(rows - 1, 0).bit_length()


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
    staging: dict[tuple, torch.Tensor]  # staging key (see staging_key) -> buffer, least recently used first
    staging_users: dict[tuple, set[int]]  # staging key -> pad addresses of the configurations using it
    pads: dict[tuple, SyncState]  # configuration key -> pad, least recently launched first
    launches: dict[tuple, Any]  # launch key (configuration key first) -> cached launch tables
    warned: set[tuple]
    max_pads: int
    staging_bytes: int
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
        """A fresh signal pad (symmetric, zeroed) and epoch word, for the
        launch configurations that share it (rank.pad_key): the epoch counts
        all of their launches."""
        if size > FLAG_CAPACITY // 2:
            raise GpuWorldError(f"the plans need {size} flags; the signal pad holds {FLAG_CAPACITY // 2}")
        pad = self.symmetric(torch.empty(FLAG_CAPACITY, dtype=torch.int32))
        pad.zero_()
        torch.cuda.synchronize(self.device)
        self.barrier()
        zeros = torch.zeros(5, dtype=torch.int32, device=self.device)
        return SyncState(pad, zeros[:1], zeros[1:], self.spin_limit, self.comm_programs)

    def pad_for(self, config: tuple, size: int) -> SyncState:
        """Configuration ``config``'s pad (``size`` flags), marked most
        recently used; a new one may first free the least recently launched
        unpinned pads (collective)."""
        sync = self.pads.pop(config, None)
        if sync is None:
            if torch.cuda.is_current_stream_capturing():
                raise GpuWorldError("a launch configuration's first launch allocates its signal pad and cannot be "
                                    "captured: launch it once eagerly before capturing a CUDA graph")
            over = len(self.pads) + 1 - self.max_pads
            victims = [k for k, s in self.pads.items() if not s.captured][:max(over, 0)]
            if victims:
                self._collective_free(pads=victims)
            sync = self.new_sync_state(size)
        self.pads[config] = sync
        return sync

    def staging_for(self, sync: SyncState, layout: StagingLayout, out: torch.Tensor) -> torch.Tensor:
        """The staging buffer for ``layout`` and output ``out``, used by the
        configuration whose pad is ``sync``: ``(world, bucket_rows(widest),
        *out.shape[1:])``, shared with the configurations of the same bucket.
        A new one is allocated (collective), after freeing least recently
        used unpinned buffers while the bound would be passed."""
        key = staging_key(layout, out)
        buf = self.staging.pop(key, None)
        if buf is None:
            if torch.cuda.is_current_stream_capturing():
                raise GpuWorldError("a reduce-scatter configuration's first launch allocates its staging buffer "
                                    "and cannot be captured: launch it once eagerly before capturing a CUDA graph")
            shape = (layout.world, bucket_rows(layout.widest), *out.shape[1:])
            need = _nbytes(shape, out.dtype)
            victims, held = [], self.staging_held()
            for k in self.staging:
                if held + need <= self.staging_bytes:
                    break
                if not self._pinned(k):
                    victims.append(k)
                    held -= _nbytes(tuple(self.staging[k].shape), self.staging[k].dtype)
            if victims:
                self._collective_free(staging=victims)
            if held + need > self.staging_bytes and ("staging",) not in self.warned:
                self.warned.add(("staging",))
                warnings.warn(f"rank {self.rank}: ce reduce-scatter staging needs {(held + need) / 2**30:.2f} GiB of "
                              f"symmetric memory, over the bound of {self.staging_bytes / 2**30:.2f} GiB (buffers of "
                              "CUDA-graph-captured configurations are kept, and a lone buffer is never refused); "
                              "raise GpuWorld.staging_bytes or use backend=nccl", RuntimeWarning, stacklevel=4)
            buf = self.symmetric(torch.empty(shape, dtype=out.dtype))
        self.staging[key] = buf
        self.staging_users.setdefault(key, set()).add(sync.flags.data_ptr())
        return buf

    def touch(self, config: tuple, staging: tuple[tuple, ...]) -> None:
        """Mark a configuration's pad and the staging buffers it uses most
        recently used (a launch whose tables exist: both are held, since a
        free drops the tables with the memory)."""
        self.pads[config] = self.pads.pop(config)
        for key in staging:
            self.staging[key] = self.staging.pop(key)

    def staging_of(self, sync: SyncState) -> list[torch.Tensor]:
        """The staging buffers the configuration whose pad is ``sync`` uses."""
        pad = sync.flags.data_ptr()
        return [self.staging[k] for k, users in self.staging_users.items() if pad in users and k in self.staging]

    def staging_held(self) -> int:
        """Bytes of staging held now."""
        return sum(_nbytes(tuple(b.shape), b.dtype) for b in self.staging.values())

    def _pinned(self, key: tuple) -> bool:
        """A staging buffer a CUDA-graph-captured configuration uses."""
        captured = {s.flags.data_ptr() for s in self.pads.values() if s.captured}
        return bool(self.staging_users.get(key, set()) & captured)

    def _collective_free(self, pads: list[tuple] = (), staging: list[tuple] = ()) -> None:
        """Free configurations' pads (by configuration key) and staging
        buffers (by staging key) on every rank at once: after this rank's
        device and every rank reached this point, nothing in flight can touch
        them. The launch tables that point into them go too."""
        torch.cuda.synchronize(self.device)
        self.barrier()
        freed: list[int] = []
        dropped_pads: set[int] = set()
        for config in pads:
            sync = self.pads.pop(config)
            dropped_pads.add(sync.flags.data_ptr())
            freed.append(sync.flags.data_ptr())
        users: set[int] = set(dropped_pads)
        for key in staging:
            buf = self.staging.pop(key)
            users |= self.staging_users.pop(key, set())
            freed.append(buf.data_ptr())
        for key in self.staging_users:
            self.staging_users[key] -= dropped_pads
        configs = set(pads)
        for key in [k for k, v in self.launches.items() if k[0] in configs or launch_pad(v) in users]:
            del self.launches[key]
        for address in freed:
            self.handles.pop(address, None)
            for view in [k for k in self.peer_views if k[0] == address]:
                del self.peer_views[view]


def staging_key(layout: StagingLayout, out: torch.Tensor) -> tuple:
    """Configurations whose staging keys are equal share a staging buffer."""
    return (layout.world, bucket_rows(layout.widest), tuple(out.shape[1:]), out.dtype)


def launch_pad(cached: Any) -> int:
    """The pad address of a cached launch (its ``sync``)."""
    return cached.sync.flags.data_ptr()


def _nbytes(shape: tuple[int, ...], dtype: torch.dtype) -> int:
    n = 1
    for d in shape:
        n *= d
    return n * torch.empty((), dtype=dtype).element_size()
