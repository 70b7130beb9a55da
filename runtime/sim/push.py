"""Simulated ranks for kernels that all-reduce by push (push-all-reduce).

Each tile of such a kernel waits for the same tile of every other rank's
kernel, and the interpreter runs one program at a time, so, as for the
epilogue reduction (runtime/sim/epilogue.py), the launches of all W ranks
wait until the last rank has launched, and each rank's kernel runs twice:

1. **collect**: the rank's pushes land in an outbox (per epoch parity and
   peer, NaN before the run) and its raises in words of its own pad; every
   flag it waits for is raised beforehand (the waits pass, the slots it
   reads hold NaN). When a tile raises its flag for a peer, the elements
   of the peer's outbox slot written since the last raise are that tile's
   partial. A raise before the store collects nothing, and a push into the
   other parity's slot is never collected;
2. **check**: the pad back as it was, the staged slots NaN again, and each
   peer's partial of a tile copied into this rank's slot (and its flag
   raised) only when a tile polls that flag, in the world's delivery order
   (``isolated``: each program starts with nothing delivered). A tile that
   reads a slot without waiting for its flag, or waits for another tile's
   flag, reads NaN, which poisons its sum.

The second run's output is the rank's result (``SimWorld.reduced[(plan,
rank)]``). The address sanitizer does not run: the pushes store outside the
planned tensors by design, and the NaN slots check the reads.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.runtime.abi import AbiError, LaunchPlan, SyncState
from syncopate.runtime.push import SIMULATED_SMS, PushLayout, pushed_plans, residency_error
from syncopate.runtime.sim.delivery import DeliveryHook, Incoming, Outgoing, SimulationError
from syncopate.runtime.sim.epilogue import DeferredLaunch

Partial = tuple[torch.Tensor, torch.Tensor]  # (element indices, values) of one tile's partial


@dataclass
class _Pushed:
    """One pushed plan on one rank: its flags (``inbox``: waited for,
    ``outbox``: raised, in the rank's own pad), its staging and its outbox."""

    name: str
    out: torch.Tensor
    inbox: PushLayout
    outbox: PushLayout
    staging: torch.Tensor  # (parity, source, elements)
    sent: torch.Tensor  # (parity, destination, elements)
    seen: torch.Tensor = field(init=False)  # elements of `sent` collected so far, per destination

    def __post_init__(self) -> None:
        self.seen = torch.zeros(self.sent.shape[1:], dtype=torch.bool)


@dataclass
class _RankState:
    launch: DeferredLaunch
    plan: LaunchPlan
    sync: SyncState
    epoch: int
    pushed: list[_Pushed]
    extra: dict
    snapshot: torch.Tensor | None = None
    polls: int = 0


def run_push(launches: list[DeferredLaunch]) -> None:
    """Run one launch per rank (ranks 0..W-1) as the module doc says."""
    states = [_prepare(d) for d in sorted(launches, key=lambda d: d.rank.rank)]
    partials: dict[tuple[str, int, int, int], Partial] = {}  # (plan, source, destination, tile) -> partial
    for state in states:
        _collect(state, partials)
    for state in states:
        _check(state, partials)


def _prepare(d: DeferredLaunch) -> _RankState:
    sim, rank = d.rank.sim, d.rank.rank
    plan = LaunchPlan.build(d.program, d.params, d.grid, rank)
    error = residency_error(d.program, plan.launch_grid(d.program, sim.comm_programs), SIMULATED_SMS)
    if error:  # a GPU could hang; the simulator refuses it as the GPU world does
        raise AbiError(f"rank {rank}: {error}")
    tiles = math.prod(plan.grid)
    base = plan.total_flags(sim.comm_programs)
    pushed = []
    for name in sorted(pushed_plans(d.program)):
        out = d.params[plan.plans[name].tensors[0].param.data]
        inbox = PushLayout(sim.world, tiles, base)
        outbox = PushLayout(sim.world, tiles, inbox.flag_end)
        base = outbox.flag_end
        shape = inbox.staging_shape(out)
        pushed.append(_Pushed(name, out, inbox, outbox, torch.full(shape, math.nan, dtype=out.dtype),
                              torch.full(shape, math.nan, dtype=out.dtype)))
    sync = sim.sync_state(rank, base)
    epoch = sim.epochs.get(rank, 0) + 1
    sim.epochs[rank] = epoch
    by_name = {p.name: p for p in pushed}

    def push_rows(name: str, tensor: str) -> list[list[int]]:
        p = by_name[name]
        return p.inbox.rows(rank, p.out, lambda owner, parity, source:
                            p.staging[parity, source] if owner == rank else p.sent[parity, owner],
                            lambda q: p.outbox.flag(q, 0))

    extra = plan.arguments(d.program, sync, None, d.rank.peer_offset, d.params, push_rows=push_rows)
    return _RankState(d, plan, sync, epoch, pushed, extra)


def _collect(state: _RankState, partials: dict[tuple[str, int, int, int], Partial]) -> None:
    """The collecting run: every wait passes; each tile's pushes are kept for the peers' delivering run."""
    sync, epoch, rank = state.sync, state.epoch, state.launch.rank.rank
    state.snapshot = sync.flags.clone()
    _reset(state)
    outgoing: dict[int, Outgoing] = {}
    for p in state.pushed:
        p.seen.zero_()
        for q, t in _peer_tiles(p, rank):
            sync.flags[p.inbox.flag(q, t)] = epoch
            outgoing[p.outbox.flag(q, t)] = Outgoing(_tile_chunk(state, p, t, rank, q, p.outbox.flag(q, t)), 1,
                                                     _keeper(p, rank, q, t, epoch, partials))
    # collected at each raise, whatever the world's order: the keeper reads the outbox as the raise finds it
    hook = DeliveryHook(sync.flags, epoch, "plan", 0, [], outgoing, bounded=state.launch.rank.sim.spin_limit > 0)
    _execute(state, hook)


def _check(state: _RankState, partials: dict[tuple[str, int, int, int], Partial]) -> None:
    """The delivering run: partials land when a tile polls their flags; the output is the rank's result."""
    d, sync, epoch = state.launch, state.sync, state.epoch
    sim, rank = d.rank.sim, d.rank.rank
    assert state.snapshot is not None
    sync.flags.copy_(state.snapshot)
    _reset(state)
    incoming = [_arrival(state, p, q, t, partials) for p in state.pushed for q, t in _peer_tiles(p, rank)]
    hook = DeliveryHook(sync.flags, epoch, sim.order, sim.seed + rank, incoming, {},
                        bounded=sim.spin_limit > 0)
    _execute(state, hook)
    for p in state.pushed:
        sim.reduced[(p.name, rank)] = p.out.detach().clone()
    sim.record(rank, state.plan, state.polls, state.extra)


def _reset(state: _RankState) -> None:
    sync = state.sync
    sync.epoch.fill_(state.epoch)
    sync.report.zero_()
    for p in state.pushed:
        p.staging.fill_(math.nan)
        p.sent.fill_(math.nan)
        p.out.fill_(math.nan)  # the kernel writes every element it owns; nothing else may show through


def _execute(state: _RankState, hook: DeliveryHook) -> None:
    d = state.launch
    with hook.installed():
        d.run(dict(state.extra), state.plan.launch_grid(d.program, d.rank.sim.comm_programs))
    message = state.sync.timeout(state.plan, d.rank.rank, _flag_names(state))
    if message:
        raise SimulationError(message)
    hook.finish()
    state.polls += hook.polls


def _flag_names(state: _RankState) -> dict[int, tuple[str, int]]:
    """The push flags this rank waits for, named for a spin report."""
    rank = state.launch.rank.rank
    return {p.inbox.flag(q, t): (f"tile {t}'s partial of @{p.name} from rank {q}", state.epoch)
            for p in state.pushed for q, t in _peer_tiles(p, rank)}


def _peer_tiles(p: _Pushed, rank: int) -> list[tuple[int, int]]:
    return [(q, t) for q in range(p.inbox.world) if q != rank for t in range(p.inbox.tiles)]


def _tile_chunk(state: _RankState, p: _Pushed, tile: int, src: int, dst: int, flag: int) -> ConcreteChunk:
    """A stand-in chunk for one tile's partial (what the delivery hook orders and names)."""
    first = state.plan.chunks[p.name][0]
    return dataclasses.replace(first, id=tile, flag=flag, lo=0, hi=0, src=src, dst=dst, step=tile)


def _keeper(p: _Pushed, rank: int, dst: int, tile: int, epoch: int,
            partials: dict[tuple[str, int, int, int], Partial]) -> Callable[[], None]:
    """At tile ``tile``'s raise for ``dst``: the elements of ``dst``'s slot it wrote since the last raise."""

    def keep() -> None:
        slot = p.sent[epoch % 2, dst]
        new = ~torch.isnan(slot) & ~p.seen[dst]
        p.seen[dst] |= new
        index = new.nonzero().flatten()
        partials[(p.name, rank, dst, tile)] = (index, slot[index].clone())

    return keep


def _arrival(state: _RankState, p: _Pushed, src: int, tile: int,
             partials: dict[tuple[str, int, int, int], Partial]) -> Incoming:
    """``src``'s partial of ``tile`` lands in its slot when a tile polls its flag."""
    rank, slot = state.launch.rank.rank, p.staging[state.epoch % 2, src]

    def parts() -> Partial:
        got = partials.get((p.name, src, rank, tile))
        if got is None:
            raise SimulationError(f"rank {src}'s tile {tile} never pushed its partial of @{p.name} to rank {rank}")
        return got

    def deliver() -> None:
        index, values = parts()
        slot[index] = values

    def retract() -> None:
        slot[parts()[0]] = math.nan

    return Incoming(_tile_chunk(state, p, tile, src, rank, p.inbox.flag(src, tile)), deliver, retract)
