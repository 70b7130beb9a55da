"""The simulated World: W ranks in one process (see runtime/sim/delivery.py for delivery).

``SimWorld(world, order, seed).rank(r, sources)`` is the :class:`RankContext`
a :class:`~syncopate.runtime.fused.FusedKernel` launches through on rank r.
``sources`` maps a gathered tensor's kernel parameter to the complete tensor
rank r should end up with (the data chunks are copied from); the tensor the
kernel actually gets is poisoned with NaN outside this rank's local chunks
before the launch, so only delivered chunks hold data. Reduce-scatter
partials are collected into ``reduced[(plan, dst)]`` as they are announced;
kernels that sum them in their epilogue (fuse-peer-reduction) run once
every rank has launched (runtime/sim/epilogue.py), and so do kernels that
all-reduce by push (runtime/sim/push.py; ``reduced[(plan, rank)]`` is then
each rank's whole result).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from syncopate.dialects import tile
from syncopate.ir.analysis import access_patterns, deps, unbounded
from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.ir.contract import CONSUMED
from syncopate.ir.contract import AbiKey as K
from syncopate.runtime.abi import LaunchPlan, SyncState, check_shards, fused_reductions
from syncopate.runtime.fused import FusedProgram
from syncopate.runtime.rows import rows
from syncopate.runtime.sim.delivery import DeliveryHook, Incoming, IsolatedOutput, Outgoing, SimulationError
from syncopate.runtime.sim.sanitizer import AddressSanitizer
from syncopate.runtime.push import pushed_plans
from syncopate.runtime.sim.epilogue import DeferredLaunch, run_deferred
from syncopate.runtime.sim.push import run_push


def _nothing() -> None:
    pass


def output_reads(program: FusedProgram, param: str) -> tuple[bool, bool]:
    """(the kernel reads ``param`` back, it adds into it with atomics). A
    produced tensor the kernel reads, e.g. a split-K output it adds into,
    holds what the workload's ``launch`` put there: the simulator must not
    poison it. An access it cannot bound counts as a read."""
    reads = adds = False
    for op in program.kernel.walk():
        if not isinstance(op, (tile.LoadOp, tile.DescriptorLoadOp, tile.AtomicRMWOp, tile.AtomicCASOp,
                               tile.DescriptorAtomicOp)):
            continue
        try:
            access = access_patterns.access_of(op, {param})
        except unbounded.Unbounded:
            access = True
        if access is None:
            continue
        reads = True
        adds = adds or isinstance(op, (tile.AtomicRMWOp, tile.DescriptorAtomicOp))
    return reads, adds


@dataclass
class LaunchInfo:
    """What one launch on one rank saw (for reports and tests)."""

    chunks: dict[str, list[ConcreteChunk]]
    graph: Any
    polls: int
    extra: dict[str, Any]


@dataclass
class SimWorld:
    """``spin_limit`` bounds the kernels' spins (debug mode); ``lost`` names
    chunks ``(plan, id)`` that are never delivered (to exercise it);
    ``sanitize`` checks the address of every load and store of a planned
    tensor against the chunks the running tile waited for or announces
    (runtime/sim/sanitizer.py)."""

    world: int
    order: str = "plan"
    seed: int = 0
    spin_limit: int = 0
    comm_programs: int = 2
    lost: frozenset[tuple[str, int]] = frozenset()
    shards: dict[str, tuple[str, list[tuple[int, int]]]] = field(default_factory=dict)  # see abi.check_shards
    sync: dict[int, SyncState] = field(default_factory=dict)
    epochs: dict[int, int] = field(default_factory=dict)
    reduced: dict[tuple[str, int], torch.Tensor] = field(default_factory=dict)
    launches: dict[int, list[LaunchInfo]] = field(default_factory=dict)
    deferred: list[DeferredLaunch] = field(default_factory=list)
    sanitize: bool = True  # check every load and store's address against the program's waits (sim_sanitizer.py)

    def defer(self, launch: DeferredLaunch) -> None:
        """Hold a launch of a kernel that reduces in its epilogue until every
        rank has launched it, then run them all (runtime/sim/epilogue.py)."""
        if any(d.rank.rank == launch.rank.rank for d in self.deferred):
            raise SimulationError(
                f"rank {launch.rank.rank} launched a kernel that reduces in its epilogue again before every rank "
                "launched it once: simulated ranks run such kernels together, after the last rank's launch"
            )
        self.deferred.append(launch)
        if len(self.deferred) == self.world:
            pending, self.deferred = self.deferred, []
            (run_push if pushed_plans(pending[0].program) else run_deferred)(pending)

    def record(self, rank: int, launch: LaunchPlan, polls: int, extra: dict[str, Any]) -> None:
        """Keep what one launch on ``rank`` saw (``launches``)."""
        self.launches.setdefault(rank, []).append(LaunchInfo(launch.chunks, launch.graph, polls, extra))

    def rank(self, rank: int, sources: Mapping[str, torch.Tensor] | None = None) -> SimRank:
        return SimRank(self, rank, dict(sources or {}))

    def sync_state(self, rank: int, size: int) -> SyncState:
        state = self.sync.get(rank)
        if state is None:
            state = self.sync[rank] = SyncState.allocate(size, None, self.spin_limit, self.comm_programs)
        state.grow(size)
        return state


@dataclass
class SimRank:
    sim: SimWorld
    rank: int
    sources: dict[str, torch.Tensor]

    def launch(self, program: FusedProgram, grid: tuple[int, ...], params: Mapping[str, Any],
               run: Callable[..., None], options: tuple | None = None) -> None:
        if fused_reductions(program) or pushed_plans(program):
            self.sim.defer(DeferredLaunch(self, program, grid, params, run))
            return
        launch = LaunchPlan.build(program, params, grid, self.rank)
        check_shards(launch, self.sim.shards)
        sync = self.sim.sync_state(self.rank, launch.total_flags(self.sim.comm_programs))
        epoch = self.sim.epochs.get(self.rank, 0) + 1
        self.sim.epochs[self.rank] = epoch
        incoming, outgoing, isolated = self.transfers(launch, params, sync, epoch, self.collector, program)
        extra = launch.arguments(program, sync, None, self.peer_offset, params)
        polls = self.execute(launch, program, sync, epoch, incoming, outgoing, extra, run, isolated, params)
        self.sim.record(self.rank, launch, polls, extra)

    def transfers(self, launch: LaunchPlan, params: Mapping[str, Any], sync: SyncState, epoch: int,
                  collect: Callable[[ConcreteChunk, int, torch.Tensor], Callable[[], None] | None],
                  program: FusedProgram, isolate_outputs: bool = True
                  ) -> tuple[list[Incoming], dict[int, Outgoing], list[IsolatedOutput]]:
        """One launch's chunks delivered to this rank and chunks it produces
        (``collect(chunk, owner, partial)`` runs when one is complete; None:
        nothing), with the plan tensors poisoned and the epoch set; under
        isolated delivery (and ``isolate_outputs``) the produced tensors'
        :class:`IsolatedOutput`, which the chunks are collected from."""
        sync.epoch.fill_(epoch)
        sync.report.zero_()
        counts = deps.signal_counts(launch.graph)
        incoming: list[Incoming] = []
        outgoing: dict[int, Outgoing] = {}
        isolated: dict[str, IsolatedOutput] = {}
        for name, plan in launch.plans.items():
            consumed = plan.collective in CONSUMED
            self.poison(plan, launch.chunks[name], params, consumed, sync.flags, epoch, program)
            for c in launch.chunks[name]:
                target = params[c.param]
                if consumed and c.dst == self.rank:
                    incoming.append(self.delivery(c, target))
                elif not consumed and c.src == self.rank:
                    out = None
                    if self.sim.order == "isolated" and isolate_outputs:
                        if c.param not in isolated:
                            isolated[c.param] = IsolatedOutput.of(target, output_reads(program, c.param)[1])
                        out = isolated[c.param]
                    done = collect(c, deps.owner(launch.chunks[name], c), target if out is None else out.acc)
                    outgoing[c.flag] = Outgoing(c, counts.get((c.plan, c.id), 0), done or _nothing, isolated=out)
        # local chunks are in place; SM chunks are the kernel's own business
        incoming = [i for i in incoming if not i.chunk.is_local and i.chunk.backend != "sm"]
        return incoming, outgoing, list(isolated.values())

    def execute(self, launch: LaunchPlan, program: FusedProgram, sync: SyncState, epoch: int,
                incoming: list[Incoming], outgoing: dict[int, Outgoing], extra: dict[str, Any],
                run: Callable[..., None], isolated: list[IsolatedOutput] | None = None,
                params: Mapping[str, Any] | None = None) -> int:
        """Run the kernel with chunks delivered as it polls (runtime/sim/delivery.py); its poll count.
        ``params``: the launch's arguments, for the address sanitizer (runtime/sim/sanitizer.py;
        off where ``SimWorld.sanitize`` is False or without them)."""
        sanitizer = None
        if params is not None and self.sim.sanitize:
            # an SM chunk arrives in slices, each with its own flag (abi.LaunchPlan.sm_slices)
            slices = launch.sm_slices(sync.comm_programs) if K.COMM_PROGRAMS in program.abi else {}
            sanitizer = AddressSanitizer.of(
                self.rank, epoch, sync.flags,
                [(t.param.data, plan.collective in CONSUMED,
                  [s for c in launch.chunks[name] if c.param == t.param.data for s in slices.get((c.plan, c.id), [c])])
                 for name, plan in launch.plans.items() for t in plan.tensors], params,
                complete=lambda flag: flag in outgoing and outgoing[flag].done)
        hook = DeliveryHook(sync.flags, epoch, self.sim.order, self.sim.seed + self.rank, incoming, outgoing,
                            lost={i.chunk.flag for i in incoming if (i.chunk.plan, i.chunk.id) in self.sim.lost},
                            bounded=self.sim.spin_limit > 0, outputs=list(isolated or ()), sanitizer=sanitizer)
        with hook.installed():
            run(extra, launch.launch_grid(program, sync.comm_programs))
        message = sync.timeout(launch, self.rank)
        if message:
            raise SimulationError(message)
        hook.finish()
        message = sanitizer.report() if sanitizer is not None else None
        if message:
            raise SimulationError(message)
        return hook.polls

    def peer_offset(self, c: ConcreteChunk, target: torch.Tensor) -> int:
        """SM pulls read the rank's source data (what the owner holds) in place."""
        source = self.sources.get(c.param)
        if source is None or source.dtype != target.dtype or source.shape != target.shape:
            raise KeyError(f"no source data shaped like '{c.param}' for rank {self.rank}'s SM chunks")
        return (source.data_ptr() - target.data_ptr()) // target.element_size()

    def delivery(self, c: ConcreteChunk, target: torch.Tensor) -> Incoming:
        source = self.sources.get(c.param)
        if source is None:
            raise KeyError(f"no source data for gathered parameter '{c.param}' on rank {self.rank}")

        def deliver() -> None:
            rows(target, c.dim, c.lo, c.hi).copy_(rows(source, c.dim, c.lo, c.hi))

        def retract() -> None:
            rows(target, c.dim, c.lo, c.hi).fill_(float("nan"))

        return Incoming(c, deliver, retract)

    def collector(self, c: ConcreteChunk, owner: int, partial: torch.Tensor) -> Callable[[], None]:
        """Add this rank's partial rows of ``c`` into their owner's result. (A
        ring plan forwards running sums hop by hop; what the fused kernel must
        get right is only when its partial is complete.)"""

        def collect() -> None:
            acc = self.sim.reduced.get((c.plan, owner))
            if acc is None:
                acc = self.sim.reduced[(c.plan, owner)] = torch.zeros_like(partial)
            rows(acc, c.dim, c.lo, c.hi).add_(rows(partial, c.dim, c.lo, c.hi))

        return collect

    def poison(self, plan, chunks: list[ConcreteChunk], params: Mapping[str, Any], consumed: bool,
                flags: torch.Tensor, epoch: int, program: FusedProgram) -> None:
        """Gathered tensors: NaN outside local chunks (which are present: their
        flags are set). Produced tensors: NaN everywhere before the kernel,
        unless the kernel reads them back (``output_reads``)."""
        for tensor in plan.tensors:
            target = params[tensor.param.data]
            if not isinstance(target, torch.Tensor) or not target.is_floating_point():
                raise TypeError(f"parameter '{tensor.param.data}' must be a floating-point tensor")
            if not consumed and output_reads(program, tensor.param.data)[0]:
                continue
            target.fill_(float("nan"))
            if consumed:
                source = self.sources[tensor.param.data]
                for c in chunks:
                    if c.is_local and c.dst == self.rank and c.tensor == tensor.tensor.data:
                        rows(target, c.dim, c.lo, c.hi).copy_(rows(source, c.dim, c.lo, c.hi))
                        flags[c.flag] = epoch
