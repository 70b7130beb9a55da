"""The ce (copy-engine) and sm backends of consumed plans (all-gather,
all-to-all, ring-exchange): both read a chunk straight from the symmetric
buffer of the rank that has it.

``ce``: a peer copy on the communication stream from the chunk's source
into this rank's buffer, then the flag write. Chunks go in this rank's
arrival order (local first, then by step), dealt round-robin over
``lanes`` side streams forked from the communication stream, so with L
lanes L chunks move at once over several copy engines and NVLink paths; the
arrival order, and so the tile order, is the same for any L. Each lane
waits for an owner's ready token before its first copy of that owner's rows
(runtime/gpu/gather_tokens.py). The copies (views and flags) are planned
once per launch key; a launch only issues them.

Small chunks travel joined: consecutive chunks of one lane and one owner
whose rows follow each other in both buffers go as one copy of at most
``GpuWorld.ce_join_bytes``, followed by all their flags as one batch of
stream writes. A copy and a flag write cost a CUDA-graph replay host time
per node (docs/performance.md, graph-node costs) and the device a start-up
latency, more than moving such a chunk takes, so a launch's host time stops
growing with the chunk count where chunks are small; large chunks keep a
copy each, so tiles start on the first rows while the rest still move.

Where the fused kernel's grid leaves an SM free (fewer programs than
SMs), a copy's flags are written by a kernel (``index_fill_`` of the
copy's flag words) instead of stream memory operations: a graph replays a
kernel node at no measurable host cost and a memory-operation node at
about a kernel launch's. A kernel needs an SM, which a grid that fills
every SM with spinning tiles would never free; such grids keep the
memory operations, which need none (as ``rank.ready_before_kernel``
reasons for wait kernels).

``sm``: the fused kernel's own communication programs pull the chunk
through peer pointers; the runtime only passes the chunk table, whose peer
offsets :func:`peer_offset` computes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import torch

from syncopate.dialects.chunk import PlanOp
from syncopate.ir.analysis import deps
from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import device, flags
from syncopate.runtime.gpu.errors import GpuWorldError
from syncopate.runtime.gpu.gather_tokens import GatherTokens, source_rank
from syncopate.runtime.rows import rows
from syncopate.runtime.uploads import upload

if TYPE_CHECKING:
    from syncopate.runtime.gpu.world import GpuWorld


def source_rows(w: GpuWorld, sources: Mapping[str, torch.Tensor], plan: PlanOp, chunks: list[ConcreteChunk],
                c: ConcreteChunk, target: torch.Tensor) -> torch.Tensor:
    """Where chunk ``c``'s data is, on the rank that has it: the sender's
    send buffer (``sources``) for an all-to-all, else the owner's copy of
    ``target``."""
    if plan.collective == "all-to-all":
        send = sources.get(c.param)
        if send is None:
            raise GpuWorldError(f"all-to-all parameter '{c.param}' needs this rank's send buffer (context(sources=...))")
        start = deps.all_to_all_source_row(plan, c)
        return rows(w.peer_view(send, c.src, c.param), c.dim, start, start + c.hi - c.lo)
    return rows(w.peer_view(target, deps.owner(chunks, c), c.param), c.dim, c.lo, c.hi)


def peer_offset(w: GpuWorld, sources: Mapping[str, torch.Tensor], consumed: Mapping[str, PlanOp],
                chunks: Mapping[str, list[ConcreteChunk]]) -> Callable[[ConcreteChunk, torch.Tensor], int]:
    """The sm chunk table's peer offsets: from chunk ``c``'s rows in this
    rank's ``t`` to the same data on the rank that has it, in elements."""
    def offset(c: ConcreteChunk, target: torch.Tensor) -> int:
        source = source_rows(w, sources, consumed[c.plan], chunks[c.plan], c, target)
        return (source.data_ptr() - rows(target, c.dim, c.lo, c.hi).data_ptr()) // target.element_size()

    return offset


def incoming(rank: int, lost: frozenset[tuple[str, int]], chunks: list[ConcreteChunk],
             backend: str) -> list[ConcreteChunk]:
    """The remote chunks ``rank`` receives on ``backend``, in arrival order
    (``lost``: chunks whose transfer is dropped, for fault injection)."""
    mine = [c for c in chunks if c.dst == rank and not c.is_local and c.backend == backend
            and (c.plan, c.id) not in lost]
    return sorted(mine, key=lambda c: (deps.arrival_rank(c), c.id))


@dataclass(frozen=True)
class Copy:
    """One transfer of one or more chunks: wait for the source's ready
    token (``ready`` word, None: already waited for on this lane), copy,
    raise ``flags`` (the chunks', in order)."""

    ready: int | None
    dst: torch.Tensor
    src: torch.Tensor
    flags: tuple[int, ...]
    words: torch.Tensor | None = None  # ``flags`` on the device: a kernel raises them (see the module docstring)


def joined(a: Copy, b: Copy, limit: int) -> Copy | None:
    """``a`` and then ``b`` as one copy, where ``b`` waits for no token, its
    rows follow ``a``'s in both buffers and the two take at most ``limit``
    bytes; else None."""
    if b.ready is not None or a.dst.nbytes + b.dst.nbytes > limit:
        return None
    dst, src = _span(a.dst, b.dst), _span(a.src, b.src)
    if dst is None or src is None:
        return None
    return Copy(a.ready, dst, src, a.flags + b.flags)


def _span(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor | None:
    """One flat view of ``a`` then ``b``, where both are dense and ``b``
    starts where ``a`` ends in the same storage; else None."""
    if (a.dtype != b.dtype or not a.is_contiguous() or not b.is_contiguous()
            or a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr()
            or a.storage_offset() + a.numel() != b.storage_offset()):
        return None
    return a.as_strided((a.numel() + b.numel(),), (1,), a.storage_offset())


def _joining(copies: list[Copy], limit: int) -> list[Copy]:
    """``copies`` (one lane's, in order) with each run that :func:`joined` accepts made one copy."""
    out: list[Copy] = []
    for c in copies:
        both = joined(out[-1], c, limit) if out else None
        if both is None:
            out.append(c)
        else:
            out[-1] = both
    return out


def plan_delivery(w: GpuWorld, sources: Mapping[str, torch.Tensor], lanes: int, plan: PlanOp,
                  chunks: list[ConcreteChunk], params: Mapping[str, Any], tokens: GatherTokens,
                  awaited: set[int], kernel_flags: bool = False) -> tuple[tuple[Copy, ...], ...]:
    """The ce copies of one plan, per lane (chunk i of the arrival order on
    lane ``i % lanes``), built once per launch key. ``awaited``: owners whose
    ready token the communication stream already waited for (in an earlier
    plan's lanes); updated. ``kernel_flags``: the fused kernel's grid leaves
    an SM free, so a kernel may raise the flags (the module docstring)."""
    todo = incoming(w.rank, w.lost, chunks, "ce")
    per_lane: list[list[Copy]] = [[] for _ in range(max(min(lanes, len(todo)), 1))]
    ready = [set(awaited) for _ in per_lane]
    for i, c in enumerate(todo):
        lane = i % len(per_lane)
        src = source_rank(plan, chunks, c)
        target = params[c.param]
        per_lane[lane].append(Copy(None if src in ready[lane] else tokens.ready(src), rows(target, c.dim, c.lo, c.hi),
                                   source_rows(w, sources, plan, chunks, c, target), (c.flag,)))
        ready[lane].add(src)
    awaited.update(*ready)
    if not todo:
        return ()
    joined_lanes = [_joining(copies, w.ce_join_bytes) for copies in per_lane]
    if kernel_flags:
        joined_lanes = [[replace(c, words=upload(c.flags, torch.int64, w.device)) for c in copies]
                        for copies in joined_lanes]
    return tuple(tuple(copies) for copies in joined_lanes)


def issue(w: GpuWorld, per_lane: tuple[tuple[Copy, ...], ...], sync: SyncState, captured: list[int]) -> None:
    """On the communication stream: a plan's ce copies (see :func:`plan_delivery`)."""
    if not per_lane:
        return
    with w.lanes(len(per_lane)) as streams:
        for stream, copies in zip(streams, per_lane):
            with torch.cuda.stream(stream):
                for c in copies:
                    if c.ready is not None:
                        device.await_token(sync, c.ready)
                    device.copy(c.dst, c.src)
                    flags.raise_flags(sync.flags, c.flags, sync, captured, c.words)
