"""Simulated ranks for kernels that reduce in their epilogue (fuse-peer-reduction).

Such a kernel's own tiles wait for partials that the *other ranks' kernels*
produce, so ranks cannot run one after another, and running them
concurrently is not enough in the interpreter either: it runs one program at
a time, so a persistent program that waits for a peer's partial would block
the very programs of its own rank that produce what that peer waits for.
So the launches of all W ranks are deferred until the last rank has
launched (run_simulated launches every rank, then reads the results), and
each rank's kernel runs twice:

1. every arrival flag of the rank raised beforehand (the waits pass
   vacuously, the staged slots hold NaN), to collect each rank's partials
   of its peers' rows as its tiles announce them (a signal raised before
   the data is written collects NaN, as in runtime/sim/delivery.py);
2. with the pad back as it was, the staged slots NaN, and each peer's
   partial of an own piece copied into its slot (and its arrival flag
   raised) only when a tile polls that flag, in the world's delivery order;
   so a tile that reads a slot without waiting reads NaN.

The second run's own rows are the rank's result (``reduced``). Both runs
compute the same tiles from the same inputs, which holds for the kernels
this targets (each tile stores a function of the inputs).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.runtime.abi import AbiError, LaunchPlan, SyncState, epilogue_order_error, fused_reductions
from syncopate.runtime.fused import FusedProgram
from syncopate.runtime.sim.delivery import Incoming, SimulationError
from syncopate.runtime.staging import StagingLayout, owner_regions, reduce_table

if TYPE_CHECKING:
    from syncopate.runtime.sim.world import SimRank


@dataclass
class DeferredLaunch:
    """One rank's launch of an epilogue-reducing kernel, waiting for the others."""

    rank: SimRank
    program: FusedProgram
    grid: tuple[int, ...]
    params: Mapping[str, Any]
    run: Callable[..., None]


@dataclass
class _RankState:
    launch: DeferredLaunch
    plan: LaunchPlan
    sync: SyncState
    epoch: int
    layouts: dict[str, StagingLayout]
    staging: dict[str, torch.Tensor]
    extra: dict[str, Any]
    snapshot: torch.Tensor | None = None
    polls: int = 0


def run_deferred(launches: list[DeferredLaunch]) -> None:
    """Run one launch per rank (ranks 0..W-1) as the module doc says."""
    states = [_prepare(d) for d in sorted(launches, key=lambda d: d.rank.rank)]
    partials: dict[tuple[str, int, int, int], torch.Tensor] = {}  # (plan, owner, source, lo) -> rows
    for state in states:
        _run(state, partials, first=True)
    for state in states:
        _run(state, partials, first=False)
        d = state.launch
        for name in state.layouts:
            out = d.params[state.plan.plans[name].tensors[0].param.data]
            d.rank.sim.reduced[(name, d.rank.rank)] = out.detach().clone()


def _prepare(d: DeferredLaunch) -> _RankState:
    sim, rank = d.rank.sim, d.rank.rank
    plan = LaunchPlan.build(d.program, d.params, d.grid, rank)
    # what the two runs cannot show: a GPU would hang. A refusal of the launch (as the GPU world refuses it),
    # not a fused kernel that computed something wrong
    error = epilogue_order_error(d.program, plan)
    if error:
        raise AbiError(f"rank {rank}: {error}")
    base = plan.total_flags(sim.comm_programs)
    layouts: dict[str, StagingLayout] = {}
    for name in sorted(fused_reductions(d.program)):
        layouts[name] = StagingLayout(owner_regions(plan.chunks[name]), sim.world, base)
        base = layouts[name].flag_end
    sync = sim.sync_state(rank, base)
    epoch = sim.epochs.get(rank, 0) + 1
    sim.epochs[rank] = epoch
    staging: dict[str, torch.Tensor] = {}

    def reduce_staging(name: str, tensor: str) -> tuple[torch.Tensor, list[list[int]]]:
        out = d.params[plan.plans[name].tensors[0].param.data]
        layout = layouts[name]
        staging[name] = torch.full(layout.shape(out), float("nan"), dtype=out.dtype)
        return staging[name], reduce_table(layout, owner_regions(plan.chunks[name]), rank, out, staging[name])

    extra = plan.arguments(d.program, sync, None, d.rank.peer_offset, d.params, reduce_staging)
    return _RankState(d, plan, sync, epoch, layouts, staging, extra)


def _run(state: _RankState, partials: dict[tuple[str, int, int, int], torch.Tensor], first: bool) -> None:
    d, launch, sync, epoch = state.launch, state.plan, state.sync, state.epoch
    sim, rank = d.rank.sim, d.rank.rank
    if first:
        state.snapshot = sync.flags.clone()
    else:
        assert state.snapshot is not None
        sync.flags.copy_(state.snapshot)
    # every produced plan is reduced in the epilogue: partials kept in the first run, for the owners' second
    # the own rows are this run's result, so only the arrivals are isolated (not the produced tensor)
    incoming, outgoing, _ = d.rank.transfers(
        launch, d.params, sync, epoch,
        lambda c, owner, partial: _collector(c, owner, partial, partials) if first else None,
        d.program, isolate_outputs=False)
    for name, layout in state.layouts.items():
        state.staging[name].fill_(float("nan"))
        for region in (r for r in owner_regions(launch.chunks[name]) if r.dst == rank):
            for src in (s for s in range(sim.world) if s != rank):
                if first:
                    sync.flags[layout.flag(region, src)] = epoch
                else:
                    incoming.append(_arrival(launch.chunks[name], region, src, layout, state.staging[name], partials))
    state.polls += d.rank.execute(launch, d.program, sync, epoch, incoming, outgoing, state.extra, d.run)
    if not first:
        sim.record(rank, launch, state.polls, state.extra)


def _collector(c: ConcreteChunk, owner: int, partial: torch.Tensor,
               partials: dict[tuple[str, int, int, int], torch.Tensor]) -> Callable[[], None] | None:
    """First run: keep this rank's partial rows of a peer's chunk for that
    peer's second run. Like the GPU's ce reduce-scatter, every partial goes
    straight to the rows' owner, whatever hops the plan's chunks take."""
    if owner == c.src:
        return None

    def collect() -> None:
        partials[(c.plan, owner, c.src, c.lo)] = partial.narrow(c.dim, c.lo, c.hi - c.lo).detach().clone()

    return collect


def _arrival(chunks: list[ConcreteChunk], region: ConcreteChunk, src: int, layout: StagingLayout,
             staging: torch.Tensor, partials: dict[tuple[str, int, int, int], torch.Tensor]) -> Incoming:
    """Second run: ``src``'s partial of own ``region`` lands in its slot when a tile polls its arrival flag."""
    sent = [c for c in chunks if c.src == src and region.lo <= c.lo and c.hi <= region.hi]
    if not sent:
        raise SimulationError(f"rank {src} sends no partial of rows [{region.lo}, {region.hi}) to rank {region.dst}")

    def deliver() -> None:
        for c in sent:
            data = partials.get((c.plan, region.dst, c.src, c.lo))
            if data is None:
                raise SimulationError(f"chunk {c.id} of @{c.plan} (rows [{c.lo}, {c.hi}) from rank {src}) was never "
                                      "announced in the first run")
            at = layout.slot(region) + c.lo - region.lo
            staging[src].narrow(0, at, c.hi - c.lo).copy_(data)

    def retract() -> None:
        for c in sent:
            staging[src].narrow(0, layout.slot(region) + c.lo - region.lo, c.hi - c.lo).fill_(float("nan"))

    return Incoming(dataclasses.replace(sent[0], flag=layout.flag(region, src)), deliver, retract)
