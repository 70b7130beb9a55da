"""One rank's fused launches on the GPU World: the order in which a launch
issues its streams' work (docs/runtime-protocol.md, "A launch, stream by
stream"), and what it builds once per launch key.

The first launch of a launch key evaluates the plans, checks them, and
resolves every transfer into views, flags and token words
(:class:`CachedLaunch`). Every later launch is lookups plus the stream
operations themselves: no IR object, no per-chunk computation, no
allocation (test/unit/runtime/gpu/test_gpu_launch_overhead.py).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch

from syncopate.ir.analysis import deps
from syncopate.runtime import aliasing
from syncopate.runtime.abi import LaunchPlan, SyncState
from syncopate.runtime.fused import FusedProgram, LaunchFacts
from syncopate.runtime.uploads import upload
from syncopate.runtime.gpu import ce, device, flags, gather_tokens, nccl, policies, push, reduce_scatter
from syncopate.runtime.gpu.replay import LaunchGraphs
from syncopate.runtime.gpu.errors import GpuWorldError
from syncopate.runtime.gpu.flags import FLAG_CAPACITY, LOCAL_FLAG
from syncopate.runtime.gpu.gather_tokens import GatherTokens, PeerReads, peer_reads

if TYPE_CHECKING:
    from syncopate.runtime.gpu.world import GpuWorld

LAUNCH_CACHE = 64  # launch tables kept (keyed by tensor addresses too)
ALIAS_CHECKS_KEPT = 64  # other-tensor descriptions remembered as checked, per launch key


@dataclass(frozen=True)
class ConsumedSteps:
    """One consumed plan's work on the communication stream: its ce copies
    per lane, then its nccl collectives and the flags raised after them."""

    copies: tuple[tuple[ce.Copy, ...], ...]
    collectives: tuple[nccl.Collective, ...]
    nccl_flags: tuple[int, ...]


@dataclass
class CachedLaunch:
    """Everything a launch key's launches issue, built by its first launch:
    the evaluated plans, the ABI arguments, its pad, who reads whose rows,
    and each plan's transfers with their views resolved. A later launch of
    the key only looks these up and issues them."""

    launch: LaunchPlan
    extra: dict[str, Any]
    sync: SyncState
    reads: PeerReads
    consumed: tuple[ConsumedSteps, ...]
    produced: tuple[reduce_scatter.ReduceSteps, ...]
    staging: tuple[tuple, ...]  # staging keys the launch uses (touched per launch: least recently used first)
    grid: tuple[int, ...]  # the grid the fused kernel launches on (sm communication programs included)
    spin_limit: int = 0  # the spin limit ``extra`` carries
    ready_first: tuple[int, ...] = ()  # ce owners whose ready tokens the kernel waits for (see ready_before_kernel)
    graphs: LaunchGraphs = field(default_factory=LaunchGraphs)  # its launches captured for eager replay
    raised: tuple[int, ...] = ()  # the flags its launches raise, sorted (cleared after a captured launch)
    raised_words: torch.Tensor | None = None  # ``raised`` on the device (int64), made outside any capture
    eager_runs: int = 0  # launches issued from Python (not captured); the first builds what a capture cannot
    pad_key: tuple = ()  # the key its signal pad is kept by (see pad_key)
    planned: tuple[tuple[str, str], ...] = ()  # (plan, parameter) of each tensor its plans move (from the IR)
    # the other tensors' descriptions (launch_keys) already checked for memory shared with a planned tensor
    alias_checked: set[tuple] = field(default_factory=set)

    @functools.cached_property
    def replayable(self) -> bool:
        """Whether its launches may replay a CUDA graph: not with NCCL
        collectives that the kernel's tiles wait on or that wait on single
        tiles. Eagerly, a collective's kernel is queued before the fused
        kernel, so it gets its SMs first; in a graph the two are parallel
        branches that start in either order, and tiles spinning on NCCL
        chunks over a full grid would hold every SM the collective needs
        (the hang runtime/gpu/policies.py warns of). An all-reduce's gather
        (``ReduceSteps.gathers``) does not stop a replay: it is left out of
        the graph and issued after its replay (:meth:`_gather`)."""
        return not (any(s.collectives for s in self.consumed) or any(p.collectives for p in self.produced))

    @functools.cached_property
    def splittable(self) -> bool:
        """Whether its communication streams' work is independent of the
        kernel's launch: then it can replay as a graph of its own beside a
        kernel launched with new arguments. Not where the communication
        stream waits for the kernel mid-launch (sm reads released after the
        kernel), nor without any communication."""
        return self.replayable and self.communicates and not self.reads.released_after_kernel

    @functools.cached_property
    def communicates(self) -> bool:
        """Whether the launch has any work beside the kernel: transfers,
        tokens or waits on the communication stream. Without any (every
        chunk local), it needs no communication stream at all."""
        return bool(self.reads.readers or self.reads.owners
                    or any(s.copies or s.collectives or s.nccl_flags for s in self.consumed)
                    or any(p.collectives or p.returns or p.takes or p.sends or p.arrivals or p.gathers
                           for p in self.produced))


@dataclass
class GpuRank:
    """The launch context of one rank (``GpuWorld.context``)."""

    world: GpuWorld
    sources: dict[str, torch.Tensor]  # all-to-all parameter -> this rank's symmetric send buffer
    last: LaunchPlan | None = None  # the latest launch's plans and chunks
    ce_lanes: int = 1  # streams the ce transfers are dealt over

    def __post_init__(self) -> None:
        self.tokens = GatherTokens(self.world.world, FLAG_CAPACITY)
        self.sources_key = tuple((k, _describe(v)) for k, v in self.sources.items())

    def launch(self, program: FusedProgram, grid: tuple[int, ...], params: Mapping[str, Any],
               run: Callable[..., None], options: tuple | None = None) -> Callable[[], bool] | None:
        """Launch ``run`` (the fused kernel) with its communication.
        ``options``: the launch options beside ``params`` (num_warps, ...),
        which a captured launch replays too; None: never replay this launch
        from a graph (its arguments hold more than ``params`` shows).
        Returns the launch's repeat when it replayed a whole-launch graph
        (see :meth:`_repeat`), else None."""
        w = self.world
        facts = program.launch_facts
        config, key, others = launch_keys(program, facts, grid, params, self.sources_key)
        cached = w.launches.get(key)
        if cached is None:
            cached = self._build(program, facts, grid, params, config, key)  # checks aliases (LaunchPlan.build)
            cached.alias_checked.add(others)
        else:
            w.touch(cached.pad_key, cached.staging)
            if others not in cached.alias_checked:  # the key holds the planned tensors, not the others
                aliasing.check_aliases(cached.planned, params)
                if len(cached.alias_checked) >= ALIAS_CHECKS_KEPT:
                    cached.alias_checked.clear()
                cached.alias_checked.add(others)
        self.last = cached.launch
        sync = cached.sync
        if sync.spin_limit != w.spin_limit:
            sync.spin_limit = w.spin_limit
        if facts.spin_limit is not None and cached.spin_limit != sync.spin_limit:
            cached.extra[facts.spin_limit] = cached.spin_limit = sync.spin_limit
        if (options is not None and w.eager_graphs and cached.replayable and not sync.spin_limit
                and not torch.cuda.is_current_stream_capturing()):
            if w.whole_graphs and cached.graphs.replay((others, options), sync,
                                                       lambda: self._issue(cached, run, gathers=False)):
                self._gather(cached)
                return self._repeat(cached, config, key, (others, options))
            if cached.eager_runs and cached.splittable and device.memop_waits():
                self._replay_communication(cached, run)
                return None
        self._issue(cached, run)
        if sync.spin_limit and not torch.cuda.is_current_stream_capturing():  # a graph's replays report nothing
            torch.cuda.synchronize(w.device)
            message = sync.timeout(cached.launch, w.rank, token_words(cached.launch, w.rank, w.world))
            if message:
                raise GpuWorldError(message)
        return None

    def _repeat(self, cached: CachedLaunch, config: tuple, key: tuple, replay_key: tuple) -> Callable[[], bool]:
        """The same launch again, arguments unchanged, for a caller that keyed
        them itself (``FusedKernel``): its graph's replay without building
        any key here. It declines (False, nothing issued) wherever
        :meth:`launch` would not replay that graph: the launch tables or the
        graph were dropped, a spin limit or capture began, or graphs were
        switched off."""
        w, sync = self.world, cached.sync

        def repeat() -> bool:
            graph = cached.graphs.graphs.get(replay_key)
            if (graph is None or w.launches.get(key) is not cached or w.spin_limit or sync.spin_limit
                    or not (w.eager_graphs and w.whole_graphs) or torch.cuda.is_current_stream_capturing()):
                return False
            w.touch(cached.pad_key, cached.staging)
            self.last = cached.launch
            cached.graphs.replay_graph(replay_key, graph, sync)
            self._gather(cached)
            return True

        return repeat

    def _replay_communication(self, cached: CachedLaunch, run: Callable[..., None]) -> None:
        """A launch whose kernel arguments are new (a fresh output, say) but
        whose launch tables are not: the communication stream's work replays
        its graph, captured once per launch key, and the kernel launches
        beside it from Python. The host counts the epoch and the compute
        stream clears the graph's flags after the kernel, as a captured
        launch's own graph would (runtime/gpu/replay.py)."""
        w, sync = self.world, cached.sync
        if cached.graphs.communication is None:
            raised: list[int] = []
            graph = device.capture(lambda: self._issue(cached, None, raised, gathers=False))
            cached.graphs.communication = (graph, tuple(sorted(raised)))
        graph, raised = cached.graphs.communication
        flags.count_launch(sync, w.device)
        compute = torch.cuda.current_stream(w.device)
        w.comm_stream.wait_stream(compute)  # this launch's own rows (and sends) are written
        with torch.cuda.stream(w.comm_stream):
            device.replay(graph)
        run(cached.extra, cached.grid)
        compute.wait_stream(w.comm_stream)
        flags.clear_flags(sync.flags, list(raised), cached.raised_words if raised == cached.raised else None)
        self._gather(cached)

    @staticmethod
    def _gather(cached: CachedLaunch) -> None:
        """An all-reduce's gather of the owners' sums after a replayed launch,
        issued from the host on the caller's stream, which the graph has
        joined after every reduction. Replay graphs leave it out: a graph
        kept alive with NCCL work in it makes ``destroy_process_group`` wait
        (test/e2e/probes/ops_in_graphs.py), and the runtime keeps its graphs
        as long as the launch tables. A user's own capture still holds it."""
        for steps in cached.produced:
            for gather in steps.gathers:
                gather()

    def _issue(self, cached: CachedLaunch, run: Callable[..., None] | None,
               raised: list[int] | None = None, gathers: bool = True) -> None:
        """Queue one launch of ``cached``: the epoch's count, then each
        stream's work in the protocol's order (docs/runtime-protocol.md).
        ``run`` None: only the communication streams' work, captured by
        :meth:`_replay_communication` (no count, no kernel, no flag clear:
        the flags it raises are appended to ``raised``). ``gathers`` False:
        without an all-reduce's gathers (a replay capture; see :meth:`_gather`)."""
        w = self.world
        sync, reads, tokens = cached.sync, cached.reads, self.tokens
        if run is not None:
            flags.count_launch(sync, w.device)
            if not torch.cuda.is_current_stream_capturing():
                cached.eager_runs += 1
        if sync.spin_limit:
            sync.report.zero_()
        captured: list[int] = [] if raised is None else raised  # flags raised inside capture, cleared after the launch

        if not cached.communicates:  # every chunk is local (a world of one): the kernel alone
            if run is not None:
                run(cached.extra, cached.grid)
            return
        compute = torch.cuda.current_stream(w.device)
        w.comm_stream.wait_stream(compute)  # this launch's own rows (and sends) are written
        with torch.cuda.stream(w.comm_stream):
            gather_tokens.begin(w, sync, tokens, reads.readers, reads.released_after_copies)
        # the kernel starts after those waits ran, before any copy is queued, where a wait needs an SM
        if cached.ready_first and (sync.spin_limit or not device.memop_waits()):
            compute.wait_stream(w.comm_stream)
        with torch.cuda.stream(w.comm_stream):
            for steps in cached.consumed:
                ce.issue(w, steps.copies, sync, captured)
                for collective in steps.collectives:
                    collective()
                for flag in steps.nccl_flags:
                    flags.raise_flag(sync.flags, flag, sync, captured)
            self._release(sync, tokens, reads.released_after_copies)
        gather_tokens.await_ready(sync, tokens, reads.released_after_kernel)  # the kernel's sm programs pull them
        if run is not None:
            run(cached.extra, cached.grid)
        with torch.cuda.stream(w.comm_stream):
            for steps in cached.produced:
                reduce_scatter.issue_reduce(w, steps, sync, gathers)
            if reads.released_after_kernel:
                w.comm_stream.wait_stream(compute)
                self._release(sync, tokens, reads.released_after_kernel)
            gather_tokens.await_releases(sync, tokens, reads.readers)
        compute.wait_stream(w.comm_stream)
        if run is not None:
            flags.clear_flags(sync.flags, captured,
                              cached.raised_words if tuple(sorted(captured)) == cached.raised else None)

    def _build(self, program: FusedProgram, facts: LaunchFacts, grid: tuple[int, ...], params: Mapping[str, Any],
               config: tuple, key: tuple) -> CachedLaunch:
        """A launch key's first launch: evaluate the plans, check them, take
        the configuration's pad and staging, and resolve every transfer."""
        w = self.world
        launch = LaunchPlan.build(program, params, grid, w.rank)
        self._check(program, launch, params, config)
        chunks = launch.chunks
        shared = pad_key(facts, config, launch, w.rank)
        sync = w.pad_for(shared, launch.flag_count)
        for name in facts.consumed:  # local chunks are in place before every launch: raised once, for good
            for c in chunks[name]:
                if c.dst == w.rank and c.is_local:
                    device.write_value(sync.flags, c.flag, LOCAL_FLAG)
        if facts.produced and not torch.cuda.is_current_stream_capturing():
            for name in reduce_scatter.staged_plans(launch):  # allocated (collectively) before the kernel runs
                reduce_scatter.ce_staging(w, launch, name, params, sync)
            w.warm_reduction(sync)
        consumed_plans = {n: launch.plans[n] for n in facts.consumed}
        extra = launch.arguments(program, sync, w.device, ce.peer_offset(w, self.sources, consumed_plans, chunks),
                                 params, reduce_scatter.reduce_staging(w, launch, params, sync),
                                 push.push_rows(w, launch, params, sync) if facts.pushed else None)
        if facts.spin_limit is not None:
            extra[facts.spin_limit] = sync.spin_limit
        reads = peer_reads(launch.plans, chunks, w.rank, frozenset(facts.consumed))
        grid = launch.launch_grid(program, sync.comm_programs)
        sms = torch.cuda.get_device_properties(w.device).multi_processor_count
        ready_first = ready_before_kernel(reads, grid, sms)
        # a flag kernel finds an SM where the grid leaves one (ce.py); never built under capture (no upload there)
        kernel_flags = math.prod(grid) < sms and not torch.cuda.is_current_stream_capturing()
        awaited = set(reads.released_after_copies)  # waited for before any copy: the lanes need not wait again
        consumed = []
        for name, plan in consumed_plans.items():
            copies = ce.plan_delivery(w, self.sources, self.ce_lanes, plan, chunks[name], params, self.tokens, awaited,
                                      kernel_flags)
            nccl_chunks = any(c.backend == "nccl" for c in chunks[name])
            collectives = nccl.plan_delivery(w, plan, chunks[name], params, self.sources) if nccl_chunks else ()
            nccl_flags = tuple(c.flag for c in ce.incoming(w.rank, w.lost, chunks[name], "nccl")) if nccl_chunks else ()
            consumed.append(ConsumedSteps(copies, collectives, nccl_flags))
        counts = deps.signal_counts(launch.graph)
        produced = tuple(reduce_scatter.plan_reduce(w, self.ce_lanes, launch.plans[name], chunks[name], params, sync,
                                                    counts, name in facts.fused_reductions)
                         for name in facts.produced)
        raised = tuple(sorted({f for s in consumed for lane in s.copies for c in lane for f in c.flags} |
                              {f for s in consumed for f in s.nccl_flags}))
        words = upload(raised, torch.int64, w.device) if raised and not torch.cuda.is_current_stream_capturing() else None
        if len(w.launches) >= LAUNCH_CACHE:
            w.launches.pop(next(iter(w.launches)))  # oldest first
        cached = w.launches[key] = CachedLaunch(
            launch, extra, sync, reads, tuple(consumed), produced, tuple(s.staging for s in produced if s.staging),
            grid, sync.spin_limit, ready_first, raised=raised, raised_words=words, pad_key=shared,
            planned=aliasing.planned(launch.plans))
        return cached

    def _check(self, program: FusedProgram, launch: LaunchPlan, params: Mapping[str, Any], config: tuple) -> None:
        """Refuse a launch the GPU World cannot run safely; warn once per
        configuration about one that may starve NCCL."""
        w = self.world
        policies.check_world(launch, w.world)
        for name, plan in launch.plans.items():
            for tensor in plan.tensors:
                policies.check_tensor(params.get(tensor.param.data), tensor.param.data)
            policies.check_backends(plan, launch.chunks[name])
        risk = policies.nccl_starvation_risk(launch, policies.first_tile(launch, program), w.rank) \
            if any(c.backend == "nccl" for cs in launch.chunks.values() for c in cs) else None
        sms = torch.cuda.get_device_properties(w.device).multi_processor_count
        reason = policies.refusal(program, launch, risk, sms, self.ce_lanes) \
            or push.refusal(program, launch.launch_grid(program, w.comm_programs), sms)
        if reason:
            raise GpuWorldError(reason)
        if risk and config not in w.warned:
            w.warned.add(config)
            warnings.warn(risk, RuntimeWarning, stacklevel=5)

    def _release(self, sync: SyncState, tokens: GatherTokens, owners: tuple[int, ...]) -> None:
        """After the last read of each of ``owners``' rows (runtime/gpu/gather_tokens.py)."""
        gather_tokens.release(self.world, sync, tokens, owners)


def pad_key(facts: LaunchFacts, config: tuple, launch: LaunchPlan, rank: int) -> tuple:
    """The key a launch configuration's signal pad (and epoch) is kept by.

    Configurations of one program share a pad when their chunks' flags,
    this rank's local chunks and who sends partials to whom are the same:
    a launch raises each consumed chunk's flag to its own epoch, which no
    earlier launch of any of them reached, and a local chunk's flag, raised
    for good, belongs to a local chunk in each of them; a produced chunk's
    flag counts only the running launch's tile signals (the stream zeroes
    it after its waits, runtime/gpu/reduce_scatter.py), and the staging
    tokens in the pad are handed between the same ranks. So a new row
    count (serving) reuses the pad: no collective allocation, no barrier.
    Which sources stage at which owner is part of the key, since an owner
    returns the tokens of the sources its last launch read: a
    configuration with fewer senders would leave a token of the other
    untaken forever."""
    chunks = [c for name in (*facts.consumed, *facts.produced) for c in launch.chunks[name]]
    local = tuple(sorted(c.flag for name in facts.consumed for c in launch.chunks[name]
                         if c.dst == rank and c.is_local))
    senders = tuple(sorted({(c.src, c.dst) for name in facts.produced for c in launch.chunks[name]
                            if c.src != c.dst and c.hi > c.lo}))
    return ("shared", config[0], launch.flag_count, tuple(sorted(c.flag for c in chunks)), local, senders)


def ready_before_kernel(reads: PeerReads, grid: tuple[int, ...], sms: int) -> tuple[int, ...]:
    """The ce owners whose ready tokens the fused kernel must wait for
    before it starts.

    A ready-token wait is a one-program kernel on the communication stream
    (runtime/gpu/stream_wait.py): it needs a free SM. A fused kernel with at
    least as many programs as the GPU has SMs can fill every SM with tiles
    that spin on chunks of those owners (attention tiles all read every
    chunk), and the copies that would end the spin wait behind the token
    wait, which then never gets an SM: a hang. Such a kernel starts only
    after the token waits ran. A smaller grid leaves an SM to the wait, and
    its local tiles start at once. Where the waits are driver stream waits
    (runtime/gpu/stream_memops.py), which need no SM, the launch still
    waits for these owners first on the communication stream but does not
    hold the kernel back (GpuRank._issue)."""
    owners = reads.released_after_copies
    return owners if owners and math.prod(grid) >= sms else ()


def token_words(launch: LaunchPlan, rank: int, world: int) -> dict[int, tuple[str, int]]:
    """Pad word -> (what it is, the value a wait expects) for every token of
    ``launch`` (gather readiness and release, staging tokens), so a spin
    report names what a rank waited for."""
    return {**GatherTokens(world, FLAG_CAPACITY).describe(rank),
            **reduce_scatter.staging_token_words(launch, rank, world)}


SCALARS = (int, float, bool, str, type(None))


def launch_keys(program: FusedProgram, facts: LaunchFacts, grid: tuple[int, ...], params: Mapping[str, Any],
                sources_key: tuple) -> tuple[tuple, tuple, tuple]:
    """(configuration key, launch key, other tensors) of a launch, in one
    pass over its arguments. Launches with equal configuration keys
    (program, grid, scalar arguments, shapes of the tensors a plan extent is
    read from) have the same tiles and chunks, so they share a signal pad and
    epoch. Launches with equal launch keys (the configuration plus the
    addresses and layouts of the tensors the plans move, and of the
    all-to-all send buffers) share everything :class:`CachedLaunch` holds:
    built once, so a later launch does no host work beyond issuing it, and
    can be captured in a CUDA graph after one eager launch. The other
    tensors (address, layout, dtype of every tensor argument the plans do
    not move) complete a launch key into a replay key
    (runtime/gpu/replay.py)."""
    scalars, tensors, others = [], [], []
    for k, v in params.items():
        if isinstance(v, torch.Tensor):
            if k in facts.moved:
                tensors.append((k, _describe(v)))
            else:
                others.append(_describe(v))
            if k in facts.shaped:
                scalars.append((k, v.shape))
        else:
            scalars.append((k, v if isinstance(v, SCALARS) else id(v)))
    config = (id(program), grid, tuple(scalars))
    return config, (config, tuple(tensors), sources_key), tuple(others)


def _describe(t: torch.Tensor) -> tuple:
    return (t.data_ptr(), t.shape, t.stride(), t.dtype)
