"""The GPU World: one process per GPU (torchrun), torch.distributed (NCCL)
and torch's symmetric memory. The protocol its launches follow is in
docs/runtime-protocol.md; :class:`~syncopate.runtime.gpu.rank.GpuRank` runs
them.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from syncopate.ir.contract import COMM_PROGRAMS
from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import device, replay
from syncopate.runtime.gpu.errors import GpuWorldError
from syncopate.runtime.gpu.memory import SymmetricMemory
from syncopate.runtime.gpu.rank import GpuRank

# A copy moves 1 MiB over NVLink in a few microseconds, about what one more copy node and flag node cost a graph
# replay's host (docs/performance.md): below that, joining chunks saves more than their separate arrival gains.
CE_JOIN_BYTES = 1 << 20


@dataclass
class GpuWorld(SymmetricMemory):
    """Rank, world size, symmetric buffers, signal pads, streams.

    ``spin_limit`` > 0 is the debug mode: every spin gives up after that many
    polls and the launch raises :class:`GpuWorldError` naming rank, program
    and chunk. ``comm_programs`` is the number of SM communication programs
    (the SMs the sm backend takes from compute). ``lost`` drops the transfers
    of chunks ``(plan, id)`` (fault injection, to see the debug mode work).
    ``ce_lanes``: the default number of side streams a launch deals its ce
    copies over; ``ce_join_bytes``: the largest copy that consecutive small
    ce chunks are joined into (0: a copy per chunk). ``comm_group``: the nccl backend's process group (NCCL on
    high-priority streams); None uses ``group``.
    """

    rank: int
    world: int
    device: torch.device
    group: Any
    comm_stream: torch.cuda.Stream
    spin_limit: int = 0
    comm_programs: int = COMM_PROGRAMS
    lost: frozenset[tuple[str, int]] = frozenset()
    ce_lanes: int = 1
    ce_join_bytes: int = CE_JOIN_BYTES  # consecutive small ce chunks go as one copy up to this size (runtime/gpu/ce.py)
    comm_group: Any = None
    handles: dict[int, Any] = field(default_factory=dict)  # buffer address -> (handle, allocated shape)
    staging: dict[tuple, torch.Tensor] = field(default_factory=dict)  # see memory.staging_key
    staging_users: dict[tuple, set[int]] = field(default_factory=dict)
    push_staging: dict[tuple, torch.Tensor] = field(default_factory=dict)  # see runtime/gpu/push.py
    launches: dict[tuple, Any] = field(default_factory=dict)  # launch key -> rank.CachedLaunch
    pads: dict[tuple, SyncState] = field(default_factory=dict)  # configuration key -> signal pad and epoch
    peer_views: dict[tuple, torch.Tensor] = field(default_factory=dict)
    lane_streams: list[torch.cuda.Stream] = field(default_factory=list)  # the ce lanes (see lanes())
    warned: set[tuple] = field(default_factory=set)  # warnings given once: configurations (NCCL starvation), ("staging",)
    loaded: set[str] = field(default_factory=set)  # communication kernels already loaded (see warm_reduction)
    eager_graphs: bool = field(default_factory=replay.enabled_by_default)  # replay steady-state launches
    whole_graphs: bool = field(default_factory=replay.whole_launches_by_default)  # ... kernel included
    max_pads: int = 64  # signal pads kept (64 KiB each; see runtime/gpu/memory.py)
    staging_bytes: int = 4 << 30  # bound on the staging buffers held (see runtime/gpu/memory.py)

    @classmethod
    def from_torchrun(cls, spin_limit: int = 0, comm_programs: int = COMM_PROGRAMS,
                      ce_lanes: int | None = None) -> GpuWorld:
        """The world of this torchrun process; ``ce_lanes`` None: :func:`default_ce_lanes`."""
        import torch.distributed as dist

        if "RANK" not in os.environ:
            raise GpuWorldError("--gpu runs one process per GPU: launch with torchrun --nproc-per-node=W overlap-run ...")
        local = int(os.environ.get("LOCAL_RANK", "0"))
        if local >= torch.cuda.device_count():
            raise GpuWorldError(f"LOCAL_RANK {local} but only {torch.cuda.device_count()} GPUs are visible")
        torch.cuda.set_device(local)
        dev = torch.device("cuda", local)
        if not dist.is_initialized():
            dist.init_process_group("nccl", device_id=dev)
        rank, world = dist.get_rank(), dist.get_world_size()
        for peer in range(torch.cuda.device_count()):
            if peer != local and not torch.cuda.can_device_access_peer(local, peer):
                raise GpuWorldError(
                    f"GPU {local} has no peer access to GPU {peer}; the ce and sm backends need it (use backend=nccl)"
                )
        # Communication runs at high priority: when a tile finishes, a pending
        # NCCL or stream-wait program gets its SM before the next tile does.
        comm_stream = torch.cuda.Stream(dev, priority=torch.cuda.Stream.priority_range()[1])
        lanes = checked_lanes(default_ce_lanes(world) if ce_lanes is None else ce_lanes)
        return cls(rank=rank, world=world, device=dev, group=dist.group.WORLD, comm_stream=comm_stream,
                   spin_limit=spin_limit, comm_programs=comm_programs, ce_lanes=lanes,
                   comm_group=_high_priority_group(dist))

    @property
    def nccl_group(self) -> Any:
        return self.comm_group if self.comm_group is not None else self.group

    def global_rank(self, rank: int) -> int:
        """The default group's rank of this world's ``rank``: peers are named
        by their rank in the world's group (a mesh dimension, say), and
        torch.distributed's ``src=``/``dst=`` take global ranks."""
        import torch.distributed as dist

        group = self.nccl_group
        return rank if group is None else dist.get_global_rank(group, rank)

    def barrier(self) -> None:
        """Every rank of the world's group reached this point."""
        import torch.distributed as dist

        dist.barrier(group=self.group, device_ids=[self.device.index])

    def context(self, sources: Mapping[str, torch.Tensor] | None = None, ce_lanes: int | None = None) -> GpuRank:
        """The launch context; ``sources`` maps an all-to-all parameter to this
        rank's symmetric send buffer; ``ce_lanes`` (default the world's) is the
        number of streams its ce transfers are dealt over."""
        lanes = checked_lanes(self.ce_lanes if ce_lanes is None else ce_lanes)
        return GpuRank(self, dict(sources or {}), ce_lanes=lanes)

    def warm_reduction(self, sync: SyncState) -> None:
        """Before a reduce-scatter configuration's first launch: load the
        stream-wait kernel its communication streams launch after the fused
        kernel (once per world) and map the peers' signal pads and this
        configuration's staging buffers, so the host issues those streams'
        work without waiting for the device.

        Why: loading a module waits for the running kernels, so a first load
        behind the fused kernel would hold the host until the kernel ended;
        a kernel that reduces in its epilogue waits for the sends behind that
        load, so it would never end."""
        if "stream wait" not in self.loaded:
            device.wait_flag(sync.flags, 0, 0, sync.epoch, sync.spin_limit, sync.report)  # target 0: passes at once
            self.loaded.add("stream wait")
            torch.cuda.synchronize(self.device)
        mine = self.staging_of(sync)
        for peer in range(self.world):
            if peer != self.rank:
                self.peer_view(sync.flags, peer, "signal pad")
                for buf in mine:
                    self.peer_view(buf, peer, "staging")

    @contextlib.contextmanager
    def lanes(self, count: int) -> Iterator[list[torch.cuda.Stream]]:
        """``max(count, 1)`` high-priority side streams for concurrent
        transfers, inside the communication stream's order: they start after
        everything queued on it so far, it waits for all of them on exit, and
        in between it stays free for other work (a fork and a join, which
        CUDA-graph capture records too)."""
        while len(self.lane_streams) < max(count, 1):
            self.lane_streams.append(torch.cuda.Stream(self.device, priority=torch.cuda.Stream.priority_range()[1]))
        lanes = self.lane_streams[:max(count, 1)]
        for s in lanes:
            s.wait_stream(self.comm_stream)
        try:
            yield lanes
        finally:
            for s in lanes:
                self.comm_stream.wait_stream(s)


def default_ce_lanes(world: int) -> int:
    """ce lanes when the user names none: one (copies one after another)."""
    return 1


def checked_lanes(lanes: int) -> int:
    if lanes < 1:
        raise GpuWorldError(f"ce_lanes must be >= 1, got {lanes}")
    return lanes


def _high_priority_group(dist: Any) -> Any:
    """A process group over every rank whose NCCL kernels run on
    high-priority streams (collective: every rank calls it); None when this
    torch cannot make one (the default group is used)."""
    try:
        options = dist.ProcessGroupNCCL.Options()
        options.is_high_priority_stream = True
        return dist.new_group(backend="nccl", pg_options=options)
    except (AttributeError, TypeError, RuntimeError, ValueError):
        return None
