"""The GPU World: one process per GPU (torchrun), torch.distributed (NCCL)
and torch's symmetric memory; the three communication backends.

Memory. Gathered tensors the copy-engine (``ce``) and SM (``sm``) backends
read from peers live in symmetric buffers (``symm_mem.empty`` +
``rendezvous``; ``get_buffer`` gives a peer's copy). The signal pad is a
symmetric int32 buffer too, so a peer can raise a flag of this rank; each
launch configuration (program, grid, sizes) has its own pad and epoch, and
the launch tables of the latest configurations (also keyed by the moved
tensors' addresses) are built once. The epoch is one int32 on the device that the compute stream increments before
each launch and kernels read, so a CUDA graph that captured a launch replays
correctly and nothing is ever reset (flags only grow).

Consumed plans (all-gather, all-to-all, ring-exchange), per chunk backend:

* ``ce``: a peer copy from the chunk's source (the owner's rows for a
  gather, the sender's rows for an all-to-all) into this rank's buffer, then
  the flag write. Chunks go in this rank's arrival order (local first, then
  by step), dealt round-robin over ``ce_lanes`` high-priority side streams
  forked from the communication stream: with one lane the copies run one
  after another; with L lanes chunks i, i+1, ..., i+L-1 of the arrival order move
  at once, so several copy engines and NVLink paths work together. The
  arrival order, and so the tile order, is the same for any L. Pulling from
  the owner makes ring and direct plans the same transfers in a different
  order.
* ``sm``: the fused kernel's own communication programs pull the chunk
  through peer pointers (see passes/sm_comm_programs.py); the runtime only
  passes the chunk table and ``comm_programs`` (the SMs they take).
* ``nccl``: per owner's shard, one ``broadcast`` from the owner on the
  communication stream (all ranks issue them in the same order), then the
  flag writes; an all-to-all is one ``all_to_all_single``. No symmetric
  memory needed: the portable fallback. NCCL's kernels need an SM, so the
  first launch of a configuration whose first tile waits for an NCCL chunk
  warns (:func:`nccl_starvation_risk`): on a full grid it can hang.

Readiness and reuse (runtime/gather_tokens.py): a ce or sm consumer reads
an owner's rows only after the owner's ready token of this launch, and a
launch ends only when every peer that reads this rank's rows has handed back
its release token, so the caller may write the next launch's rows right
after it returns, with no host barrier. nccl chunks are self-synchronising.

Flags tiles spin on are raised by ``stream_write_value32``, a stream memory
operation that needs no SM (spinning tiles may hold every SM). Eagerly it
carries the host's count of launches (= the device epoch). Inside CUDA-graph
capture it writes ``GRAPH_FLAG`` (>= every epoch) and the launch clears those
flags after the kernel and its transfers, so each replay waits for its own
writes. A local chunk's flag (its rows are in place before every launch)
is raised once, to ``GRAPH_FLAG``, when the launch's tables are built, and
never cleared: no launch spends a stream write on it. Replays advance the
device epoch without the host, so once a
configuration has been captured, each eager launch of it first reads the
device epoch back (one device synchronization) before it counts on: a
configuration may mix eager launches and graph replays.

Produced plans (reduce-scatter): the kernel raises a chunk's flag once per
tile; the communication stream waits for ``epoch * tiles`` with a one-program
kernel (runtime/stream_wait.py), then

* ``nccl``: ``reduce`` of the chunk's rows to their owner;
* ``ce``: a peer copy of the partial rows into the owner's symmetric staging
  slot and a flag write into the owner's pad (regions in departure order,
  round-robin over the ``ce_lanes`` side streams, each lane waiting for its
  region's tiles). Meanwhile the communication stream of the owner sums the
  staged partials as their flags arrive (in the order the peers send them),
  so only one add into its own rows is left after its last tiles. A kernel
  through fuse-peer-reduction adds the staged partials in its own tiles'
  epilogue instead (each tile waits for the arrival flags of its rows;
  staging buffer and table from runtime/staging.py): the owner's stream
  only waits for those tiles. Staging tokens (runtime/staging.py) keep a
  launch from overwriting a slot its owner has not read yet: a source takes
  the owner's token before its first send, and the owner returns it when
  its communication stream starts its next launch of the configuration,
  which is after every read of the last one (stream order), so nothing is
  left on the launch's critical path (returning them at the end of the
  launch would cost as much as a barrier of all ranks). Each configuration
  has its own staging buffer, since its tokens live in its pad.

Rank r's result of a reduce-scatter is its own rows of the output tensor.

Multi-node: everything above goes through ``torch.distributed`` and
``_symmetric_memory``; with symmetric memory's NVSHMEM backend the same calls
reach other nodes. Only single-node NVLink hosts have been run.
"""

from __future__ import annotations

import contextlib
import functools
import os
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from syncopate.dialects.chunk import PlanOp
from syncopate.ir.analysis import deps
from syncopate.ir.analysis.chunk_access import CONSUMED
from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.runtime.abi import COMM_PROGRAMS, LaunchPlan, SyncState, epilogue_order_error, fused_reductions
from syncopate.runtime.fused import FusedProgram
from syncopate.runtime.gather_tokens import GatherTokens, peer_reads, source_rank
from syncopate.runtime.sim_world import rows
from syncopate.runtime.staging import StagingLayout, owner_regions, reduce_table
from syncopate.runtime.stream_wait import wait_flag

LAUNCH_CACHE = 64  # launch tables kept (keyed by tensor addresses too)
FLAG_CAPACITY = 1 << 14  # symmetric signal pad words; the upper half holds reduce-scatter arrivals


class GpuWorldError(Exception):
    """A setup problem the user must fix (world size, peer access, layout)."""


@dataclass
class GpuWorld:
    """Rank, world size, symmetric buffers, signal pad, streams.

    ``spin_limit`` > 0 is the debug mode: every spin gives up after that many
    polls and the launch raises :class:`GpuWorldError` naming rank, program
    and chunk. ``comm_programs`` is the number of SM communication programs
    (the SMs the SM backend takes from compute). ``lost`` drops the transfers
    of chunks ``(plan, id)`` (fault injection, to see the debug mode work).
    """

    rank: int
    world: int
    device: torch.device
    group: Any
    comm_stream: torch.cuda.Stream
    spin_limit: int = 0
    comm_programs: int = COMM_PROGRAMS
    lost: frozenset[tuple[str, int]] = frozenset()
    ce_lanes: int = 1  # default concurrent ce copy streams of a launch context (see the module doc)
    comm_group: Any = None  # the nccl backend's process group (high-priority NCCL streams); None: ``group``
    handles: dict[int, Any] = field(default_factory=dict)
    staging: dict[tuple, torch.Tensor] = field(default_factory=dict)
    launches: dict[tuple, tuple] = field(default_factory=dict)  # key -> (LaunchPlan, ABI arguments, counts, SyncState)
    pads: dict[tuple, SyncState] = field(default_factory=dict)  # (program, grid, sizes) -> signal pad and epoch
    peer_views: dict[tuple, torch.Tensor] = field(default_factory=dict)  # (address, peer, dtype) -> peer's buffer
    lane_streams: list[torch.cuda.Stream] = field(default_factory=list)  # the ce lanes (see lanes())
    warned: set[tuple] = field(default_factory=set)  # configurations already warned about (NCCL starvation), ("staging",)
    loaded: set[str] = field(default_factory=set)  # communication kernels already loaded (see warm_reduction)
    staging_warn_bytes: int = 8 << 30  # staging_for warns once when the staging buffers together pass this

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
        device = torch.device("cuda", local)
        if not dist.is_initialized():
            dist.init_process_group("nccl", device_id=device)
        rank, world = dist.get_rank(), dist.get_world_size()
        for peer in range(torch.cuda.device_count()):
            if peer != local and not torch.cuda.can_device_access_peer(local, peer):
                raise GpuWorldError(
                    f"GPU {local} has no peer access to GPU {peer}; the ce and sm backends need it (use backend=nccl)"
                )
        # Communication runs at high priority: when a tile finishes, a pending
        # NCCL or stream-wait program gets its SM before the next tile does.
        # Tiles that spin on nccl chunks hold SMs; only a local-first order
        # (order=arrival) guarantees finishing tiles free SMs for NCCL.
        comm_stream = torch.cuda.Stream(device, priority=torch.cuda.Stream.priority_range()[1])
        lanes = _checked_lanes(default_ce_lanes(world) if ce_lanes is None else ce_lanes)
        return cls(rank, world, device, dist.group.WORLD, comm_stream, spin_limit, comm_programs,
                   ce_lanes=lanes, comm_group=_high_priority_group(dist))

    @property
    def nccl_group(self) -> Any:
        return self.comm_group if self.comm_group is not None else self.group

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

    def barrier(self) -> None:
        import torch.distributed as dist

        dist.barrier(device_ids=[self.device.index])

    def new_sync_state(self, size: int) -> SyncState:
        """A fresh signal pad (symmetric, zeroed) and epoch word. Each launch
        configuration (program, grid, sizes) gets its own, so its epoch counts
        exactly its launches:
        a produced chunk is complete at ``epoch * tiles`` only if every
        launch on that pad had the same tiles."""
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

    def context(self, sources: Mapping[str, torch.Tensor] | None = None, ce_lanes: int | None = None) -> GpuRank:
        """The launch context; ``sources`` maps an all-to-all parameter to this
        rank's symmetric send buffer; ``ce_lanes`` (default the world's) is the
        number of streams its ce transfers are dealt over."""
        lanes = _checked_lanes(self.ce_lanes if ce_lanes is None else ce_lanes)
        return GpuRank(self, dict(sources or {}), ce_lanes=lanes)

    def warm_reduction(self, sync: SyncState) -> None:
        """Before a launch's first run: load the kernel its reduce-scatter's
        communication streams launch after the fused kernel (the stream wait,
        once per world) and map the peers' signal pads and this
        configuration's staging buffers, so the host issues those streams'
        work without waiting for the device.

        Why: loading a module waits for the running kernels. Measured on
        nvidia-h200-x2 (docs/performance.md, seventh session): the host sat
        in Triton's first launch of the stream wait (``_init_handles``) until
        the fused kernel ended. In stream mode that only delays the first
        launch's sends; a kernel that reduces in its epilogue waits for those
        sends, so it hung."""
        if "stream wait" not in self.loaded:
            wait_flag(sync.flags, 0, 0, sync.epoch, sync.spin_limit, sync.report)  # target 0: passes at once
            self.loaded.add("stream wait")
            torch.cuda.synchronize(self.device)
        mine = [buf for key, buf in self.staging.items() if key[0] == sync.flags.data_ptr()]
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
    if "tile_order" in abi:
        tiles = deps.grid_tiles(launch.tiles)
        return tiles[deps.tile_order(launch.graph, launch.tiles, abi["group"].value.data)[0]]
    if "rotate" in abi:
        first = [0, 0, 0]
        first[abi["axis"].value.data] = deps.rotation(launch.graph, abi["axis"].value.data)
        return (first[0], first[1], first[2])
    return (0, 0, 0)


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
    its own before every program started. Measured on nvidia-h200-x2 with
    one SM free and one lane: a launch hung with one GEMM program never
    scheduled and its peer tiles never signaled."""
    if not fused_reductions(program):
        return None
    free = epilogue_comm_sms(lanes)
    if launch.persistent and programs > sms - free:
        return (f"@{program.kernel.sym_name.data} reduces in its epilogue (fuse-peer-reduction) and its {programs} "
                f"persistent programs leave {max(sms - programs, 0)} of {sms} SMs free; the communication stream and "
                f"its {lanes} ce lane(s) each spin in a one-program wait that may take an SM of its own, and a "
                f"program that cannot start would never send its partials. Launch at most {sms - free} programs.")
    return None


def _staged_plans(launch: LaunchPlan) -> list[str]:
    """The launch's reduce-scatter plans the ce backend stages at their owners (no nccl chunk)."""
    return [name for name, plan in launch.plans.items()
            if plan.collective not in CONSUMED and all(c.backend != "nccl" for c in launch.chunks[name])]


def staged_reductions_refusal(launch: LaunchPlan) -> str | None:
    """Why a launch with more than one ce reduce-scatter plan is refused, or
    None: every plan's staging layout starts at the same pad word
    (:func:`_ce_reduce_schedule`) and plans of one output shape would share
    a staging buffer, so two such plans would mix each other's partials."""
    staged = _staged_plans(launch)
    if len(staged) > 1:
        return (f"plans {', '.join('@' + n for n in staged)} are reduce-scatters on the ce backend; the GPU runtime "
                "stages one such plan per program. Use backend=nccl for all but one, or split the kernel.")
    return None


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


def default_ce_lanes(world: int) -> int:
    """ce lanes when the user names none: one (copies one after another)."""
    return 1


def _checked_lanes(lanes: int) -> int:
    if lanes < 1:
        raise GpuWorldError(f"ce_lanes must be >= 1, got {lanes}")
    return lanes


def _high_priority_group(dist: Any) -> Any:
    """A process group over every rank whose NCCL kernels run on
    high-priority streams (collective: every rank calls it); the default
    group when this torch cannot make one."""
    try:
        options = dist.ProcessGroupNCCL.Options()
        options.is_high_priority_stream = True
        return dist.new_group(backend="nccl", pg_options=options)
    except (AttributeError, TypeError, RuntimeError, ValueError):
        return None


def _write_epoch(flags: torch.Tensor, index: int, epoch: torch.Tensor) -> None:
    """``flags[index] = epoch`` on the current stream, copied from the epoch
    word (a graph replay writes its own epoch). A same-device copy may run as
    a driver kernel, which needs a free SM: used only for reduce-scatter
    arrivals, which no tile waits on."""
    flags[index:index + 1].copy_(epoch, non_blocking=True)


GRAPH_FLAG = 2**31 - 1  # what a flag raised inside CUDA-graph capture holds: at least every epoch
LOCAL_FLAG = GRAPH_FLAG  # a local chunk's flag, raised once when its launch tables are built: never waited for


def _write_value(flags: torch.Tensor, index: int, value: int) -> None:
    """``flags[index] = value`` by a stream memory operation: no SM needed."""
    from torch.distributed._symmetric_memory import _SymmetricMemory

    _SymmetricMemory.stream_write_value32(flags.view(torch.uint32), index, value)


def _copy(dst: torch.Tensor, src: torch.Tensor) -> None:
    """A peer copy on the current stream (a copy engine for contiguous rows)."""
    dst.copy_(src, non_blocking=True)


def _await_token(sync: SyncState, index: int) -> None:
    """Hold the current stream until ``sync``'s pad word ``index`` is at least 1 (a token)."""
    wait_flag(sync.flags, index, 0, sync.epoch, sync.spin_limit, sync.report, least=1)


def _count_launch(sync: SyncState, device: torch.device) -> None:
    """One more launch on ``sync``'s pad: the device epoch word (on the
    stream) and the host's count. Inside capture the pad is marked captured;
    an eager launch of a captured pad first reads the device epoch back, since
    replays moved it on without the host."""
    if torch.cuda.is_current_stream_capturing():
        sync.captured = True
    elif sync.captured:
        torch.cuda.synchronize(device)
        sync.host_epoch = int(sync.epoch.item())
    sync.host_epoch += 1
    sync.epoch.add_(1)


def _clear_flags(flags: torch.Tensor, indices: list[int]) -> None:
    """Zero the flags a captured launch raised, after its kernel and transfers:
    one stream write for a lone flag, one fill per run of consecutive flags
    (a chunk per flag: with chunks_per_rank > 1, a write per chunk put a node
    per chunk after the kernel; the fill's kernel finds the SMs free then)."""
    runs: list[list[int]] = []
    for index in sorted(indices):
        if runs and index == runs[-1][1]:
            runs[-1][1] += 1
        else:
            runs.append([index, index + 1])
    for lo, hi in runs:
        if hi - lo == 1:
            _write_value(flags, lo, 0)
        else:
            flags[lo:hi].zero_()


def _raise_flag(flags: torch.Tensor, index: int, sync: SyncState, captured: list[int]) -> None:
    """Raise a flag tiles spin on with a stream memory operation, which takes
    no SM, so tiles that fill every SM while spinning cannot starve it.
    Eagerly it writes the host's launch count, which equals the epoch the
    kernel reads. A captured write replays a constant, so inside CUDA-graph
    capture it writes GRAPH_FLAG and records ``index`` in ``captured``; the
    launch clears those flags again once the kernel and the transfers are
    done (one more stream write each), so every replay waits for its own."""
    capturing = torch.cuda.is_current_stream_capturing()
    _write_value(flags, index, GRAPH_FLAG if capturing else sync.host_epoch)
    if capturing:
        captured.append(index)


@dataclass
class GpuRank:
    world: GpuWorld
    sources: dict[str, torch.Tensor]
    last: LaunchPlan | None = None  # the latest launch's plans and chunks
    ce_lanes: int = 1  # streams the ce transfers are dealt over (see the module doc)

    def launch(self, program: FusedProgram, grid: tuple[int, ...], params: Mapping[str, Any],
               run: Callable[..., None]) -> None:
        w = self.world
        config = _config_key(program, grid, params)
        key = _launch_key(config, program, params, self.sources)
        cached = w.launches.get(key)
        if cached is None:
            launch = LaunchPlan.build(program, params, grid, w.rank)
            if any(p.world_size != w.world for p in launch.plans.values()):
                sizes = sorted({p.world_size for p in launch.plans.values()})
                raise GpuWorldError(f"the plan is for world {sizes}, the process group has {w.world} ranks")
            for name, plan in launch.plans.items():
                for tensor in plan.tensors:
                    _check_tensor(params.get(tensor.param.data), tensor.param.data)
                _check_backends(plan, launch.chunks[name])
            risk = nccl_starvation_risk(launch, first_tile(launch, program), w.rank) \
                if any(c.backend == "nccl" for cs in launch.chunks.values() for c in cs) else None
            sms = torch.cuda.get_device_properties(w.device).multi_processor_count
            refusal = (staged_reductions_refusal(launch)
                       or persistent_nccl_refusal(launch, risk, grid[0], sms)
                       or epilogue_reduction_refusal(program, launch, grid[0], sms, self.ce_lanes)
                       or epilogue_order_error(program, launch))
            if refusal:
                raise GpuWorldError(refusal)
            if risk and config not in w.warned:
                w.warned.add(config)
                warnings.warn(risk, RuntimeWarning, stacklevel=3)
        else:
            launch = cached[0]
        self.last = launch
        plans, chunks = launch.plans, launch.chunks
        if config not in w.pads:
            w.pads[config] = w.new_sync_state(launch.flag_count)
        sync = w.pads[config]
        sync.spin_limit = w.spin_limit
        compute = torch.cuda.current_stream(w.device)
        _count_launch(sync, w.device)
        if sync.spin_limit:
            sync.report.zero_()
        consumed = {n: p for n, p in plans.items() if p.collective in CONSUMED}
        produced = {n: p for n, p in plans.items() if p.collective not in CONSUMED}
        captured: list[int] = []  # flags raised inside CUDA-graph capture, cleared after the launch
        if cached is None:  # an eager launch: building the tables copies them to the device
            for name in consumed:  # local chunks are in place before every launch: raised once, for good
                for c in chunks[name]:
                    if c.dst == w.rank and c.is_local:
                        _write_value(sync.flags, c.flag, LOCAL_FLAG)
            if produced and not torch.cuda.is_current_stream_capturing():
                for name in _staged_plans(launch):  # allocated (collectively) before the kernel runs, not behind it
                    self._ce_staging(launch, name, params, sync)
                w.warm_reduction(sync)
            extra = launch.arguments(program, sync, w.device, self._peer_offset(consumed, chunks), params,
                                     self._reduce_staging(launch, params, sync))
            if len(w.launches) >= LAUNCH_CACHE:
                w.launches.pop(next(iter(w.launches)))  # oldest first
            reads = peer_reads(plans, chunks, w.rank, frozenset(consumed))
            cached = w.launches[key] = (launch, extra, deps.signal_counts(launch.graph), sync, reads)
        extra, counts, reads = dict(cached[1]), cached[2], cached[4]
        tokens = GatherTokens(w.world, FLAG_CAPACITY)
        if "spin_limit" in program.abi:
            extra[program.abi["spin_limit"].data] = sync.spin_limit

        w.comm_stream.wait_stream(compute)  # this launch's own rows (and sends) are written
        with torch.cuda.stream(w.comm_stream):
            for reader in reads.readers:
                _write_value(w.peer_view(sync.flags, reader, "signal pad"), tokens.ready(w.rank), 1)
            awaited: set[int] = set()
            for name, plan in consumed.items():
                self._deliver(plan, chunks[name], params, sync, captured, tokens, awaited)
            self._release(sync, tokens, reads.released_after_copies)
        for owner in reads.released_after_kernel:  # the kernel's communication programs pull their rows
            _await_token(sync, tokens.ready(owner))
        run(extra, launch.launch_grid(program, sync.comm_programs))
        with torch.cuda.stream(w.comm_stream):
            if produced:
                fused = fused_reductions(program)
                for name, plan in produced.items():
                    self._reduce(plan, chunks[name], params, sync, counts, name in fused)
            if reads.released_after_kernel:
                w.comm_stream.wait_stream(compute)
                self._release(sync, tokens, reads.released_after_kernel)
            for reader in reads.readers:  # nothing after the launch may overwrite rows a peer still reads
                _await_token(sync, tokens.released(reader))
                _write_value(sync.flags, tokens.released(reader), 0)
        compute.wait_stream(w.comm_stream)
        _clear_flags(sync.flags, captured)
        if sync.spin_limit and not torch.cuda.is_current_stream_capturing():  # a graph's replays report nothing
            torch.cuda.synchronize(w.device)
            message = sync.timeout(launch, w.rank, _token_words(launch, w.rank, w.world))
            if message:
                raise GpuWorldError(message)

    # -- consumed plans --------------------------------------------------------

    def _source_rows(self, plan: PlanOp, chunks: list[ConcreteChunk], c: ConcreteChunk,
                     target: torch.Tensor) -> torch.Tensor:
        """Where chunk ``c``'s data is, on the rank that has it."""
        w = self.world
        if plan.collective == "all-to-all":
            send = self.sources.get(c.param)
            if send is None:
                raise GpuWorldError(f"all-to-all parameter '{c.param}' needs this rank's send buffer (context(sources=...))")
            start = deps.all_to_all_source_row(plan, c)
            return rows(w.peer_view(send, c.src, c.param), c.dim, start, start + c.hi - c.lo)
        return rows(w.peer_view(target, deps.owner(chunks, c), c.param), c.dim, c.lo, c.hi)

    def _peer_offset(self, consumed: dict[str, PlanOp], chunks: dict[str, list[ConcreteChunk]]):
        def offset(c: ConcreteChunk, target: torch.Tensor) -> int:
            source = self._source_rows(consumed[c.plan], chunks[c.plan], c, target)
            return (source.data_ptr() - rows(target, c.dim, c.lo, c.hi).data_ptr()) // target.element_size()

        return offset

    def _incoming(self, chunks: list[ConcreteChunk], backend: str) -> list[ConcreteChunk]:
        w = self.world
        mine = [c for c in chunks if c.dst == w.rank and not c.is_local and c.backend == backend
                and (c.plan, c.id) not in w.lost]
        return sorted(mine, key=lambda c: (deps.arrival_rank(c), c.id))

    def _deliver(self, plan: PlanOp, chunks: list[ConcreteChunk], params: Mapping[str, Any], sync: SyncState,
                 captured: list[int], tokens: GatherTokens, awaited: set[int]) -> None:
        """On the communication stream: the ce and nccl transfers of one plan.
        Each lane waits for an owner's ready token before its first copy of
        that owner's rows (``awaited``: owners the communication stream
        already waited for, in an earlier plan's lanes)."""
        incoming = self._incoming(chunks, "ce")
        with self.world.lanes(min(self.ce_lanes, len(incoming))) as lanes:
            ready = [set(awaited) for _ in lanes]
            for i, c in enumerate(incoming):
                lane = i % len(lanes)
                with torch.cuda.stream(lanes[lane]):
                    src = source_rank(plan, chunks, c)
                    if src not in ready[lane]:
                        _await_token(sync, tokens.ready(src))
                        ready[lane].add(src)
                    target = params[c.param]
                    _copy(rows(target, c.dim, c.lo, c.hi), self._source_rows(plan, chunks, c, target))
                    _raise_flag(sync.flags, c.flag, sync, captured)
            awaited.update(*ready)
        if any(c.backend == "nccl" for c in chunks):
            self._nccl_deliver(plan, chunks, params)
            for c in self._incoming(chunks, "nccl"):
                _raise_flag(sync.flags, c.flag, sync, captured)

    def _release(self, sync: SyncState, tokens: GatherTokens, owners: tuple[int, ...]) -> None:
        """On the communication stream, after the last read of each of
        ``owners``' rows: reset their ready tokens, then hand each owner its
        release token (in that order: see runtime/gather_tokens.py)."""
        for owner in owners:
            _write_value(sync.flags, tokens.ready(owner), 0)
        for owner in owners:
            _write_value(self.world.peer_view(sync.flags, owner, "signal pad"), tokens.released(self.world.rank), 1)

    def _nccl_deliver(self, plan: PlanOp, chunks: list[ConcreteChunk], params: Mapping[str, Any]) -> None:
        import torch.distributed as dist

        w = self.world
        if plan.collective == "all-to-all":
            param = plan.tensors[0].param.data
            send, recv = self.sources.get(param), params[param]
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

    # -- produced plans --------------------------------------------------------

    def _ce_staging(self, launch: LaunchPlan, name: str, params: Mapping[str, Any],
                    sync: SyncState) -> tuple[StagingLayout, torch.Tensor]:
        """Plan ``name``'s staging layout and buffer (runtime/staging.py)."""
        out = params[launch.plans[name].tensors[0].param.data]
        layout = _ce_reduce_schedule(tuple(launch.chunks[name]), self.world.rank, self.world.world)[0]
        return layout, self.world.staging_for(sync, layout, out)

    def _reduce_staging(self, launch: LaunchPlan, params: Mapping[str, Any], sync: SyncState) -> Callable[
            [str, str], tuple[torch.Tensor, list[list[int]]]]:
        """The staging buffer and ``syn_reduce_span`` table of a plan the kernel reduces in its epilogue."""
        def staging(name: str, tensor: str) -> tuple[torch.Tensor, list[list[int]]]:
            layout, buf = self._ce_staging(launch, name, params, sync)
            out = params[launch.plans[name].tensors[0].param.data]
            return buf, reduce_table(layout, owner_regions(launch.chunks[name]), self.world.rank, out, buf)

        return staging

    def _reduce(self, plan: PlanOp, chunks: list[ConcreteChunk], params: Mapping[str, Any], sync: SyncState,
                counts: dict[tuple[str, int], int], fused: bool = False) -> None:
        """On the communication stream: sum every rank's partial rows of each
        chunk at the chunk's owner, as soon as this rank's tiles announce them.
        ``fused``: the kernel's own tiles add the staged partials themselves
        (fuse-peer-reduction); the stream only waits for those tiles, so the
        next launch's stream returns the staging tokens after them."""
        w = self.world
        mine = [c for c in chunks if c.src == w.rank]

        def wait_tiles(region: ConcreteChunk) -> None:
            """Hold the stream until this rank's tiles announced its partial rows of ``region``."""
            for c in mine:
                if region.lo <= c.lo and c.hi <= region.hi:
                    wait_flag(sync.flags, c.flag, counts.get((c.plan, c.id), 0), sync.epoch, sync.spin_limit,
                              sync.report)

        regions = owner_regions(chunks)
        if any(c.backend == "nccl" for c in chunks):
            import torch.distributed as dist

            for region in regions:
                wait_tiles(region)
                view = rows(params[region.param], region.dim, region.lo, region.hi)
                packed = view if view.is_contiguous() else view.contiguous()
                dist.reduce(packed, dst=region.dst, group=w.nccl_group)
                if packed is not view and region.dst == w.rank:
                    view.copy_(packed)
            return
        if any(r.dim != 0 for r in regions):
            raise GpuWorldError(
                f"plan @{plan.sym_name.data} scatters along dim {regions[0].dim}; the ce backend reduces row chunks "
                "(dim 0) only: use backend=nccl"
            )
        out = params[plan.tensors[0].param.data]
        layout, sends, arrivals = _ce_reduce_schedule(tuple(chunks), w.rank, w.world)
        staging = w.staging_for(sync, layout, out)
        for src in _token_holders(arrivals):  # this stream read their last partials (the previous launch)
            _write_value(w.peer_view(sync.flags, src, "signal pad"), layout.token(w.rank), 1)
        for owner in dict.fromkeys(r.dst for r in sends):  # take each owner's token before sending to it
            wait_flag(sync.flags, layout.token(owner), 0, sync.epoch, sync.spin_limit, sync.report, least=1)
            _write_value(sync.flags, layout.token(owner), 0)
        with w.lanes(min(self.ce_lanes, len(sends))) as lanes:
            for i, region in enumerate(sends):
                with torch.cuda.stream(lanes[i % len(lanes)]):
                    wait_tiles(region)
                    at = layout.slot(region)
                    peer_staging = w.peer_view(staging, region.dst, "staging")[w.rank]
                    rows(peer_staging, 0, at, at + region.hi - region.lo).copy_(rows(out, 0, region.lo, region.hi),
                                                                                non_blocking=True)
                    peer_flags = w.peer_view(sync.flags, region.dst, "signal pad")
                    _write_epoch(peer_flags, layout.flag(region, w.rank), sync.epoch)
            # meanwhile, on the communication stream: sum the peers' partials of each own region as they arrive
            for piece, sources in arrivals:
                if fused:
                    wait_tiles(piece)
                    continue
                at, n = layout.slot(piece), piece.hi - piece.lo
                total = None
                for src in sources:
                    wait_flag(sync.flags, layout.flag(piece, src), 1, sync.epoch, sync.spin_limit, sync.report)
                    if total is None:
                        total = rows(staging[src], 0, at, at + n)
                    else:
                        total.add_(rows(staging[src], 0, at, at + n))
                wait_tiles(piece)
                if total is not None:
                    rows(out, 0, piece.lo, piece.hi).add_(total)


def _token_holders(arrivals: list[tuple[ConcreteChunk, list[int]]]) -> list[int]:
    """The sources that staged partials at this owner (each waits for this owner's token)."""
    return list(dict.fromkeys(src for _, sources in arrivals for src in sources))


def _token_words(launch: LaunchPlan, rank: int, world: int) -> dict[int, tuple[str, int]]:
    """Pad word -> (what it is, the value a wait expects) for the tokens of
    ``launch``: gather readiness/release and the ce reduce-scatters' staging
    tokens (named in spin reports)."""
    words = GatherTokens(world, FLAG_CAPACITY).describe(rank)
    for name in _staged_plans(launch):
        layout = _ce_reduce_schedule(tuple(launch.chunks[name]), rank, world)[0]
        for owner in range(world):
            words[layout.token(owner)] = (f"rank {owner}'s staging token of @{name} (rank {owner} has not "
                                          "started this launch, so it may still read this rank's last partials)", 1)
    return words


@functools.lru_cache(maxsize=64)
def _ce_reduce_schedule(chunks: tuple[ConcreteChunk, ...], rank: int, world: int) -> tuple[
        StagingLayout, list[ConcreteChunk], list[tuple[ConcreteChunk, list[int]]]]:
    """(staging layout, the regions ``rank`` sends in order, each own region
    with the peers in the order their partials arrive), computed once per
    plan evaluation (no host work per launch)."""
    regions = owner_regions(list(chunks))
    own = [(piece, _arrival_order(list(chunks), regions, piece, world)) for piece in regions if piece.dst == rank]
    return StagingLayout(regions, world, FLAG_CAPACITY // 2, GatherTokens(world, FLAG_CAPACITY).base), _send_order(list(chunks), regions, rank), own


def _send_order(chunks: list[ConcreteChunk], regions: list[ConcreteChunk], rank: int) -> list[ConcreteChunk]:
    """The peers' regions in the order ``rank`` sends its partials of them:
    the tile order's departure order (chunks to other ranks by step; see
    deps.departure_rank)."""
    mine = [c for c in chunks if c.src == rank]

    def departure(region: ConcreteChunk) -> tuple:
        inside = [deps.departure_rank(c) for c in mine if region.lo <= c.lo and c.hi <= region.hi]
        return (min(inside, default=(1, 0)), region.dst, region.lo)

    return sorted((r for r in regions if r.dst != rank), key=departure)


def _arrival_order(chunks: list[ConcreteChunk], regions: list[ConcreteChunk], piece: ConcreteChunk,
                   world: int) -> list[int]:
    """The peers in the order their partials of ``piece`` (a region of its
    owner) should arrive: by its position in each peer's send order."""
    def position(peer: int) -> int:
        return [(r.dst, r.lo) for r in _send_order(chunks, regions, peer)].index((piece.dst, piece.lo))

    return sorted((p for p in range(world) if p != piece.dst), key=lambda p: (position(p), p))


def _config_key(program: FusedProgram, grid: tuple[int, ...], params: Mapping[str, Any]) -> tuple:
    """Launches with equal configuration keys (program, grid, scalar
    arguments) have the same tiles, so they share a signal pad and epoch."""
    scalars = tuple((k, v if isinstance(v, (int, float, bool, str, type(None))) else id(v))
                    for k, v in params.items() if not isinstance(v, torch.Tensor))
    return (id(program), grid, scalars)


def _launch_key(config: tuple, program: FusedProgram, params: Mapping[str, Any],
                sources: Mapping[str, torch.Tensor]) -> tuple:
    """Launches with equal keys (the configuration plus the addresses and
    layouts of the tensors the plans move) share their plan evaluation and
    ABI tables: built once, so there is no host work or host-to-device copy
    per launch, and a launch can be captured in a CUDA graph after one warm-up."""

    def describe(t: torch.Tensor) -> tuple:
        return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype)

    moved = {t.param.data for plan in program.plans for t in plan.tensors}  # other tensors do not shape the tables
    return (config, tuple((k, describe(v)) for k, v in params.items() if k in moved and isinstance(v, torch.Tensor)),
            tuple((k, describe(v)) for k, v in sources.items()))


def _check_backends(plan: PlanOp, chunks: list[ConcreteChunk]) -> None:
    backends = {c.backend for c in chunks if not c.is_local}
    if "nccl" in backends and len(backends) > 1:
        raise GpuWorldError(
            f"plan @{plan.sym_name.data} mixes nccl with {sorted(backends - {'nccl'})}: NCCL collectives need every "
            "rank's chunks of a plan on nccl"
        )
    if backends - {"ce", "sm", "nccl"}:
        raise GpuWorldError(f"plan @{plan.sym_name.data} has chunks without a backend: run select-backend (the overlap pipeline does)")


def _check_tensor(t: Any, name: str) -> None:
    if not isinstance(t, torch.Tensor) or not t.is_cuda:
        raise GpuWorldError(f"parameter '{name}' must be a CUDA tensor")
    if not t.is_contiguous():
        raise GpuWorldError(f"parameter '{name}' must be contiguous: chunks are moved as whole rows")
    if t.data_ptr() % 16:
        raise GpuWorldError(f"parameter '{name}' is not 16-byte aligned")
