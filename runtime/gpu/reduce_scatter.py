"""Produced plans (reduce-scatter, all-reduce) on the GPU World: the ce
schedule, its staging at the owners, staging tokens, and the stream-side
reduction. An all-reduce runs as its reduce-scatter phase (the chunks the
kernel announces, ``deps.kernel_chunks``), then an NCCL gather of the
owners' summed rows (one all-gather where the owners' blocks are equal,
else a broadcast per owner, every rank in the owners' order), on the
communication stream once the sums are in (``ReduceSteps.gathers``).

The kernel raises a produced chunk's flag once per tile; the communication
stream waits for the chunk's tile count (driver stream waits; a one-program
kernel, runtime/gpu/stream_wait.py, in the debug mode), then hands the rows on: ``nccl`` reduces them
to their owner (runtime/gpu/nccl.py); ``ce`` copies the partial rows into
the owner's symmetric staging slot and raises an arrival flag in the
owner's pad, and the owner sums the staged partials as they arrive (or its
tiles do, in their epilogue, after fuse-peer-reduction). Staging tokens keep
a source from overwriting a slot its owner has not read. The layout is in
runtime/staging.py; the protocol in docs/runtime-protocol.md.

Produced flags count this launch's tile signals only: once the stream has
waited for every one of them, it zeroes them again (one kernel, after the
last wait), and the compute stream joins it before the next launch's
kernel adds to them. So a produced flag's target is its tile count, not
``epoch * tiles``, and launches of other tiles (another row count) may
share the signal pad (rank.pad_key): nothing they leave behind adds to
another configuration's counts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import torch

from syncopate.dialects.chunk import PlanOp
from syncopate.ir.analysis import deps
from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.ir.contract import CONSUMED
from syncopate.runtime.abi import LaunchPlan, SyncState
from syncopate.runtime.gpu import device, nccl
from syncopate.runtime.gpu.errors import GpuWorldError
from syncopate.runtime.gpu.flags import FLAG_CAPACITY
from syncopate.runtime.gpu.gather_tokens import GatherTokens
from syncopate.runtime.gpu.memory import staging_key
from syncopate.runtime.rows import rows
from syncopate.runtime.uploads import upload
from syncopate.runtime.staging import StagingLayout, owner_regions, reduce_table

if TYPE_CHECKING:
    from syncopate.runtime.gpu.world import GpuWorld


def staged_plans(launch: LaunchPlan) -> list[str]:
    """The launch's reduce-scatter plans the ce backend stages at their owners (no nccl chunk)."""
    return [name for name, plan in launch.plans.items()
            if plan.collective not in CONSUMED and all(c.backend != "nccl" for c in launch.chunks[name])]


@functools.lru_cache(maxsize=64)
def ce_reduce_schedule(chunks: tuple[ConcreteChunk, ...], rank: int, world: int) -> tuple[
        StagingLayout, list[ConcreteChunk], list[tuple[ConcreteChunk, list[int]]]]:
    """(staging layout, the regions ``rank`` sends in order, each own region
    with the peers in the order their partials arrive), computed once per
    plan evaluation. The layout's flags start at the pad's upper half and
    end below the gather tokens."""
    regions = owner_regions(list(chunks))
    own = [(piece, arrival_order(list(chunks), regions, piece, world)) for piece in regions if piece.dst == rank]
    layout = StagingLayout(regions, world, FLAG_CAPACITY // 2, GatherTokens(world, FLAG_CAPACITY).base)
    return layout, send_order(list(chunks), regions, rank), own


def send_order(chunks: list[ConcreteChunk], regions: list[ConcreteChunk], rank: int) -> list[ConcreteChunk]:
    """The peers' regions in the order ``rank`` sends its partials of them:
    the tile order's departure order (chunks to other ranks by step; see
    deps.departure_rank)."""
    mine = [c for c in chunks if c.src == rank]

    def departure(region: ConcreteChunk) -> tuple:
        inside = [deps.departure_rank(c) for c in mine if region.lo <= c.lo and c.hi <= region.hi]
        return (min(inside, default=(1, 0)), region.dst, region.lo)

    return sorted((r for r in regions if r.dst != rank), key=departure)


def arrival_order(chunks: list[ConcreteChunk], regions: list[ConcreteChunk], piece: ConcreteChunk,
                  world: int) -> list[int]:
    """The peers in the order their partials of ``piece`` (a region of its
    owner) should arrive: by its position in each peer's send order."""
    def position(peer: int) -> int:
        return [(r.dst, r.lo) for r in send_order(chunks, regions, peer)].index((piece.dst, piece.lo))

    return sorted((p for p in range(world) if p != piece.dst), key=lambda p: (position(p), p))


def token_holders(arrivals: list[tuple[ConcreteChunk, list[int]]]) -> list[int]:
    """The sources that staged partials at this owner (each waits for this owner's token)."""
    return list(dict.fromkeys(src for _, sources in arrivals for src in sources))


def staging_token_words(launch: LaunchPlan, rank: int, world: int) -> dict[int, tuple[str, int]]:
    """Pad word -> (what it is, the value a wait expects) for the staging
    tokens of ``launch``'s ce reduce-scatters (named in spin reports)."""
    words = {}
    for name in staged_plans(launch):
        layout = ce_reduce_schedule(tuple(launch.chunks[name]), rank, world)[0]
        for owner in range(world):
            words[layout.token(owner)] = (f"rank {owner}'s staging token of @{name} (rank {owner} has not "
                                          "started this launch, so it may still read this rank's last partials)", 1)
    return words


def ce_staging(w: GpuWorld, launch: LaunchPlan, name: str, params: Mapping[str, Any],
               sync: SyncState) -> tuple[StagingLayout, torch.Tensor]:
    """Plan ``name``'s staging layout and buffer (runtime/staging.py)."""
    out = params[launch.plans[name].tensors[0].param.data]
    layout = ce_reduce_schedule(tuple(launch.chunks[name]), w.rank, w.world)[0]
    return layout, w.staging_for(sync, layout, out)


def reduce_staging(w: GpuWorld, launch: LaunchPlan, params: Mapping[str, Any], sync: SyncState) -> Callable[
        [str, str], tuple[torch.Tensor, list[list[int]]]]:
    """The staging buffer and ``syn_reduce_span`` table of a plan the kernel reduces in its epilogue."""
    def staging(name: str, tensor: str) -> tuple[torch.Tensor, list[list[int]]]:
        layout, buf = ce_staging(w, launch, name, params, sync)
        out = params[launch.plans[name].tensors[0].param.data]
        return buf, reduce_table(layout, owner_regions(launch.chunks[name]), w.rank, out, buf)

    return staging


# ("wait", pad, word, tiles) driver waits (device.token_ops): hold the stream until each word >= tiles
Waits = tuple[tuple[str, torch.Tensor, int, int], ...]


@dataclass(frozen=True)
class Send:
    """A ce send: after this rank's tiles of the region (``tiles``), copy its
    partial into the owner's staging slot and raise the owner's arrival flag."""

    tiles: Waits
    dst: torch.Tensor
    src: torch.Tensor
    owner_flags: torch.Tensor
    flag: int


@dataclass(frozen=True)
class Arrival:
    """An own region: the peers' staged partials (arrival flag, slot) summed
    into ``out`` after this rank's tiles (``fused``: the tiles sum them; only wait)."""

    tiles: Waits
    partials: tuple[tuple[int, torch.Tensor], ...]
    out: torch.Tensor


@dataclass(frozen=True)
class ReduceSteps:
    """One produced plan's work on the communication stream, built once per launch key."""

    collectives: tuple[tuple[Waits, Callable[[], None]], ...] = ()  # nccl: (tiles, reduce)
    returns: tuple[tuple[torch.Tensor, int], ...] = ()  # ce: (source's pad, word) of each staging token handed back
    takes: tuple[int, ...] = ()  # ce: own pad words of the owners' tokens to take before sending
    sends: tuple[tuple[Send, ...], ...] = ()  # ce: per lane
    arrivals: tuple[Arrival, ...] = ()
    fused: bool = False
    staging: tuple = ()  # the staging key used (see memory.staging_key)
    counted: tuple[int, ...] = ()  # the produced flags its waits read, zeroed after the last of them
    counted_words: torch.Tensor | None = None  # ``counted`` on the device (int64), made outside any capture
    gathers: tuple[Callable[[], None], ...] = ()  # all-reduce: each owner's summed rows to every rank (NCCL)


def plan_reduce(w: GpuWorld, lanes: int, plan: PlanOp, chunks: list[ConcreteChunk], params: Mapping[str, Any],
                sync: SyncState, counts: Mapping[tuple[str, int], int], fused: bool = False) -> ReduceSteps:
    """The steps of :func:`reduce` (``lanes``: side streams the ce sends are
    dealt over; ``fused``: the kernel's tiles add the staged partials);
    an all-reduce's with the gather of the summed rows after them."""
    steps = _plan_scatter(w, lanes, plan, chunks, params, sync, counts, fused)
    if plan.collective == "all-reduce":
        steps = replace(steps, gathers=nccl.plan_gather_reduced(w, plan, chunks, params))
    return steps


def _plan_scatter(w: GpuWorld, lanes: int, plan: PlanOp, chunks: list[ConcreteChunk], params: Mapping[str, Any],
                  sync: SyncState, counts: Mapping[tuple[str, int], int], fused: bool) -> ReduceSteps:
    mine = [c for c in chunks if c.src == w.rank]

    def tiles(region: ConcreteChunk) -> Waits:
        return tuple(("wait", sync.flags, c.flag, counts.get((c.plan, c.id), 0)) for c in mine
                     if region.lo <= c.lo and c.hi <= region.hi)

    regions = owner_regions(chunks)
    if any(c.backend == "nccl" for c in chunks):
        collectives = tuple(zip((tiles(r) for r in regions), nccl.plan_reduce(w, regions, params)))
        return ReduceSteps(collectives=collectives, **_counted(w, [wait for waits, _ in collectives for wait in waits]))
    if any(r.dim != 0 for r in regions):
        raise GpuWorldError(
            f"plan @{plan.sym_name.data} scatters along dim {regions[0].dim}; the ce backend reduces row chunks "
            "(dim 0) only: use backend=nccl"
        )
    out = params[plan.tensors[0].param.data]
    layout, sends, arrivals = ce_reduce_schedule(tuple(chunks), w.rank, w.world)
    staging = w.staging_for(sync, layout, out)
    per_lane: list[list[Send]] = [[] for _ in range(max(min(lanes, len(sends)), 1))]
    for i, region in enumerate(sends):
        at = layout.slot(region)
        peer_staging = w.peer_view(staging, region.dst, "staging")[w.rank]
        per_lane[i % len(per_lane)].append(Send(
            tiles(region), rows(peer_staging, 0, at, at + region.hi - region.lo), rows(out, 0, region.lo, region.hi),
            w.peer_view(sync.flags, region.dst, "signal pad"), layout.flag(region, w.rank)))
    own = []
    for piece, sources in arrivals:
        if not sources:
            continue  # no peer adds to it (a world of one): nothing to wait for
        at, n = layout.slot(piece), piece.hi - piece.lo
        own.append(Arrival(tiles(piece), tuple((layout.flag(piece, src), rows(staging[src], 0, at, at + n))
                                               for src in sources), rows(out, 0, piece.lo, piece.hi)))
    waited = [wait for lane in per_lane for send in lane for wait in send.tiles] + \
        [wait for arrival in own for wait in arrival.tiles]
    return ReduceSteps(
        returns=tuple((w.peer_view(sync.flags, src, "signal pad"), layout.token(w.rank))
                      for src in token_holders(arrivals)),
        takes=tuple(layout.token(owner) for owner in dict.fromkeys(r.dst for r in sends)),
        sends=tuple(tuple(lane) for lane in per_lane) if sends else (),
        arrivals=tuple(own), fused=fused, staging=staging_key(layout, out), **_counted(w, waited))


def _counted(w: GpuWorld, waits: list[tuple[str, torch.Tensor, int, int]]) -> dict[str, Any]:
    """``ReduceSteps.counted`` (and its device copy) for ``waits``: the
    produced flags the stream waits for, each once."""
    counted = tuple(sorted({flag for _, _, flag, _ in waits}))
    words = None
    if counted and not torch.cuda.is_current_stream_capturing():
        words = upload(counted, torch.int64, w.device)
    return {"counted": counted, "counted_words": words}


def issue_reduce(w: GpuWorld, steps: ReduceSteps, sync: SyncState, gathers: bool = True) -> None:
    """On the communication stream: one produced plan's steps (see
    :func:`reduce`), then the reset of the produced flags they waited for,
    then an all-reduce's gathers (``gathers`` False: the caller issues them).
    A tile wait's target is the region's tile count, a constant (the
    counts are zeroed after every launch), so each region's waits are one
    batch of driver stream waits, which hold the stream without an SM: a
    wait kernel would spin on an SM the fused kernel's tiles need, for as
    long as those tiles run (one-program wait kernels only in the debug
    mode or without the driver bindings, as for tokens)."""
    flags_, epoch, limit, report = sync.flags, sync.epoch, sync.spin_limit, sync.report
    for waits, collective in steps.collectives:
        device.token_ops(sync, waits)
        collective()
    # hand back the tokens of the sources whose last partials this stream read (the previous launch),
    # then take each owner's token before sending to it: one batch each
    device.token_ops(sync, tuple(("write", pad, word, 1) for pad, word in steps.returns))
    device.token_ops(sync, tuple(("wait", flags_, word, 1) for word in steps.takes) +
                     tuple(("write", flags_, word, 0) for word in steps.takes))
    if steps.sends or steps.arrivals:
        with w.lanes(len(steps.sends)) as streams:
            for stream, sends in zip(streams, steps.sends):
                with torch.cuda.stream(stream):
                    for send in sends:
                        device.token_ops(sync, send.tiles)
                        device.copy(send.dst, send.src)
                        device.write_epoch(send.owner_flags, send.flag, sync.epoch)
            # meanwhile, on the communication stream: sum the peers' partials of each own region as they arrive
            for arrival in steps.arrivals:
                total = None
                for flag, partial in () if steps.fused else arrival.partials:
                    device.wait_flag(flags_, flag, 1, epoch, limit, report)
                    if total is None:
                        total = partial  # summed in place: the slot is read once per launch
                    else:
                        device.accumulate(total, partial)
                device.token_ops(sync, arrival.tiles)
                if total is not None:
                    device.accumulate(arrival.out, total)
    # every wait above has passed once the lanes joined: this launch's tile signals are all in
    reset_counts(sync.flags, steps)
    for gather in steps.gathers if gathers else ():  # an all-reduce: the owners' sums are in (summed above)
        gather()


def reset_counts(flags: torch.Tensor, steps: ReduceSteps) -> None:
    """Zero the produced flags ``steps`` waited for, on the current stream,
    after those waits: one kernel (it finds an SM, since the tiles that
    signal them have signalled); without the device copy of the words
    (a first launch inside capture), one write each."""
    if not steps.counted:
        return
    if steps.counted_words is not None:
        device.zero_words(flags, steps.counted_words)
        return
    for flag in steps.counted:
        device.write_value(flags, flag, 0)


def reduce(w: GpuWorld, lanes: int, plan: PlanOp, chunks: list[ConcreteChunk], params: Mapping[str, Any],
           sync: SyncState, counts: Mapping[tuple[str, int], int], fused: bool = False) -> None:
    """On the communication stream: sum every rank's partial rows of each
    chunk at the chunk's owner, as soon as this rank's tiles announce them.
    ce: hand back the staging tokens of the sources that staged here last
    launch, take each owner's token, then send the partials over the lanes
    while the communication stream sums the arrivals. ``fused``: the
    kernel's own tiles add the staged partials themselves
    (fuse-peer-reduction); the stream only waits for those tiles, so the
    next launch's stream returns the staging tokens after them."""
    issue_reduce(w, plan_reduce(w, lanes, plan, chunks, params, sync, counts, fused), sync)
