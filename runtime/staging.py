"""Where a ce reduce-scatter stages its partials at their owner (both worlds).

Owner ``d`` of a reduce-scatter holds a staging buffer of shape ``(world,
widest, *out.shape[1:])``: one slot per source rank, as wide as the widest
owner's rows. A region (one local chunk of ``d``: its own rows; an owner has
several with chunks_per_rank > 1, and apart from each other with blocks > 1)
sits in the slot after ``d``'s regions above it, packed: rows between two
regions of ``d`` belong to other owners and take no slot. Each region has
one arrival flag per source in ``d``'s signal pad, from ``flag_base`` on: a
source copies its partial of the region into its slot, then raises that
flag to the launch's epoch.

With the fused reduction (fuse-peer-reduction) the owner's tiles read the
slots themselves: :func:`reduce_table` is the table ``syn_reduce_span``
walks.

Staging tokens (after the arrival flags): word ``token(d)`` of a source's
pad says whether owner ``d``'s slot for that source is free (1) or may
hold a partial ``d`` has not read yet (0). Before it sends ``d`` a launch's
partials, a source waits for 1 and writes 0; ``d`` writes 1 into the
source's pad when its next launch begins, after every read of the last
one. The protocol is binary (constant stream writes, no epochs), so CUDA
graphs replay it; it replaces a barrier of all ranks after every launch
and leaves nothing to do after the last read.
"""

from __future__ import annotations

import torch

from syncopate.ir.analysis.deps import ConcreteChunk


class StagingError(Exception):
    """A reduce-scatter whose partials cannot be staged."""


def owner_regions(chunks: list[ConcreteChunk]) -> list[ConcreteChunk]:
    """Each rank's own (local) chunks: the rows that rank owns, by owner."""
    return sorted((c for c in chunks if c.is_local), key=lambda c: (c.dst, c.lo))


class StagingLayout:
    """Slots and arrival flags of one plan's regions (see the module doc);
    ``flag_limit`` is the pad's size (None: unbounded)."""

    def __init__(self, regions: list[ConcreteChunk], world: int, flag_base: int, flag_limit: int | None = None):
        self.world = world
        self.flag_base = flag_base
        self.at: dict[tuple[int, int], int] = {}  # a region's first slot row: the rows of its owner's regions above it
        self.index: dict[tuple[int, int], int] = {}  # its place among its owner's regions
        filled: dict[int, int] = {}  # per owner: slot rows so far
        placed: dict[int, int] = {}  # per owner: regions so far
        # an empty region (a symbolic piece of no rows at this launch) shares its lo with the next one: it goes
        # first, so that the region with rows keeps the key
        for r in sorted(regions, key=lambda r: (r.dst, r.lo, r.hi)):
            self.at[(r.dst, r.lo)] = filled.get(r.dst, 0)
            self.index[(r.dst, r.lo)] = placed.get(r.dst, 0)
            filled[r.dst] = self.at[(r.dst, r.lo)] + r.hi - r.lo
            placed[r.dst] = self.index[(r.dst, r.lo)] + 1
        self.widest = max(filled.values())
        self.pieces = max(self.index.values()) + 1
        if flag_limit is not None and self.flag_end > flag_limit:
            raise StagingError(f"the ce reduce-scatter needs {world * world * self.pieces} arrival flags and "
                               f"{world} staging tokens; the signal pad holds {flag_limit - flag_base}: "
                               "use fewer chunks per rank")

    @property
    def flag_end(self) -> int:
        """One past the last pad word of the layout (arrival flags, then staging tokens)."""
        return self.token(self.world)

    def token(self, owner: int) -> int:
        """A source's pad word that says ``owner``'s staging slot for it is free (see the module doc)."""
        return self.flag_base + self.world * self.world * self.pieces + owner

    def slot(self, region: ConcreteChunk) -> int:
        """First row of ``region`` in a staging slot."""
        return self.at[(region.dst, region.lo)]

    def flag(self, region: ConcreteChunk, src: int) -> int:
        """The owner's pad word that says ``src``'s partial of ``region`` arrived."""
        return self.flag_base + (region.dst * self.world + src) * self.pieces + self.index[(region.dst, region.lo)]

    def shape(self, out: torch.Tensor) -> tuple[int, ...]:
        """The staging buffer's shape for output ``out``."""
        return (self.world, self.widest, *out.shape[1:])


def reduce_table(layout: StagingLayout, regions: list[ConcreteChunk], rank: int, out: torch.Tensor,
                 staging: torch.Tensor) -> list[list[int]]:
    """``syn_reduce_span``'s rows for ``rank``: per own region and peer,
    ``(lo, hi, arrival flag, staging offset of row lo, row stride, columns)``
    in elements of ``staging`` (a contiguous buffer of 2-D ``out``'s dtype,
    shaped ``layout.shape(out)`` or with more rows per slot)."""
    if out.dim() != 2:
        raise StagingError(f"the epilogue reduction sums 2-D tiles; the reduce-scattered tensor has shape {tuple(out.shape)}")
    shape = layout.shape(out)
    fits = (staging.dim() == len(shape) and staging.shape[0] == shape[0] and staging.shape[1] >= shape[1]
            and tuple(staging.shape[2:]) == shape[2:])
    if not fits or not staging.is_contiguous() or staging.dtype != out.dtype:
        raise StagingError(f"staging buffer {tuple(staging.shape)} {staging.dtype} does not fit layout "
                           f"{shape} {out.dtype}")
    return [[r.lo, r.hi, layout.flag(r, src), src * staging.stride(0) + layout.slot(r) * staging.stride(1),
             staging.stride(1), out.shape[1]]
            for r in regions if r.dst == rank for src in range(layout.world) if src != rank]
