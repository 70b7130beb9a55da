"""Chunk-plan templates, instantiated from xDSL pass-option style specs.

Spec syntax (parsed by ``xdsl.utils.arg_spec.parse_spec``)::

    all-gather{world=4 tensor=a dim=0 size=M chunks_per_rank=2 order=ring}
    reduce-scatter{world=8 size=1000 order=direct}
    reduce-scatter{world=2 size=M blocks=4}     # [4, s, n] rows, scattered on s
    all-reduce{world=4 size=4096}
    all-to-all{world=3 splits=1,2,3}          # W or W*W split sizes
    ring-exchange{world=4 size="M"}

Options (``-`` and ``_`` are interchangeable in keys):

=================  ===========================================================
``world``          number of ranks W (required)
``tensor``         logical tensor name (default ``a``)
``dim``            dimension the tensor is split along (default 0)
``size``           global extent along ``dim``: int or symbol/expression
                   (quote expressions: ``size="2*M"``; default ``M``); a
                   symbol naming no kernel parameter is the tensor's shape
                   at each launch (:mod:`~syncopate.ir.plans.launch_extents`)
``chunks_per_rank`` pieces each rank's shard is cut into (default 1)
``blocks``         reduce-scatter only: the extent is ``blocks`` blocks
                   (default 1), each sharded over the ranks on its own:
                   rank r owns piece r of every block. The rows of a
                   ``[b, s, n]`` tensor flattened to ``b*s`` are ``b``
                   blocks, and this scatters its dim ``s`` in place, with
                   no copy that moves ``s`` to the front
``order``          ``ring`` (neighbour forwarding) or ``direct`` (each rank
                   sends straight to every other, staggered); default ring;
                   all-to-all is always direct
``splits``         all-to-all only: W sizes (rank s sends ``splits[d]`` to d)
                   or W*W sizes row-major ``[src][dst]``
``name``           plan symbol name (default ag / rs / ar / a2a / rx)
``param``          kernel base-pointer parameter (default ``<tensor>_ptr``;
                   ``tensor=x_ptr`` naming a kernel pointer parameter also works)
``stride``         the kernel's stride parameter of ``dim`` (normally inferred
                   from the kernel's address arithmetic)
=================  ===========================================================

A size that does not divide by ``W*chunks_per_rank`` still tiles exactly
(see :mod:`syncopate.ir.plans.tiling`): the size is cut into W shards, one
per rank, ``size // W`` rows each and the last rank the rest (the rule the
workloads' ``shard_bounds`` follows, for literal and symbolic sizes alike),
and each shard into ``chunks_per_rank`` pieces by the same rule, so a
rank's pieces cover exactly its shard. With ``blocks`` the size is cut into
its blocks by the same rule, and each block as the size is without them.
Piece ``c`` of a rank's shard (its pieces numbered block by block)
forwarded at ring step ``k`` gets logical step ``k*pieces + c``, ``pieces``
being ``blocks*chunks_per_rank``.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from syncopate.ir.plans.errors import PlanError
from syncopate.ir.plans.expr import Extent, normalize, total, user_extent
from syncopate.ir.plans.model import Chunk, Plan, Tensor
from syncopate.ir.plans.tiling import is_empty, shift, tile

ORDERS = ("ring", "direct")
DEFAULT_NAMES = {
    "all-gather": "ag",
    "reduce-scatter": "rs",
    "all-reduce": "ar",
    "all-to-all": "a2a",
    "ring-exchange": "rx",
}


# A fused kernel's ranks share one NVLink domain, at most 72 GPUs (NVL72).
# Plans grow as W*W moves and verifying them grows faster, so a larger world
# is refused up front instead of computing for minutes.
MAX_WORLD = 72
MAX_CHUNKS = 8192  # chunks of one plan (world x chunks_per_rank): the GPU signal pad's flags
MAX_DIMS = 16  # dims of a plan's tensor: dim < MAX_DIMS (the binding names every dim's size and stride)


@dataclass(frozen=True)
class TemplateOptions:
    """Validated options of one template instantiation."""

    kind: str
    world: int
    tensor: str = "a"
    dim: int = 0
    size: Extent = "M"
    chunks_per_rank: int = 1
    blocks: int = 1
    order: str = "ring"
    splits: tuple[Extent, ...] | None = None
    name: str | None = None
    param: str | None = None
    stride: str | int | None = None

    def __post_init__(self) -> None:
        if self.world < 1:
            raise PlanError(f"{self.kind}: world must be >= 1, got {self.world}")
        if self.chunks_per_rank < 1:
            raise PlanError(
                f"{self.kind}: chunks_per_rank must be >= 1, got {self.chunks_per_rank}"
            )
        if self.blocks < 1:
            raise PlanError(f"{self.kind}: blocks must be >= 1, got {self.blocks}")
        if self.blocks > 1 and self.kind != "reduce-scatter":
            # a gather's input and an all-reduce's gather phase take each rank's rows as one range
            raise PlanError(f"{self.kind}: 'blocks' is only for reduce-scatter")
        if self.dim < 0:
            raise PlanError(f"{self.kind}: dim must be >= 0, got {self.dim}")
        if self.dim >= MAX_DIMS:
            raise PlanError(f"{self.kind}: dim={self.dim} is beyond the dims a plan's tensor may have "
                            f"(at most {MAX_DIMS}: dim 0 .. {MAX_DIMS - 1})")
        if self.world > MAX_WORLD:
            raise PlanError(f"{self.kind}: world={self.world} is more ranks than a fused kernel supports "
                            f"(at most {MAX_WORLD})")
        if self.world * self.chunks_per_rank * self.blocks > MAX_CHUNKS:
            raise PlanError(f"{self.kind}: world={self.world} x chunks_per_rank={self.chunks_per_rank}"
                            + (f" x blocks={self.blocks}" if self.blocks > 1 else "")
                            + f" is more chunks than a plan may have (at most {MAX_CHUNKS}, one signal-pad flag each)")
        if isinstance(self.size, int) and self.world * self.blocks > self.size > 0:
            if self.blocks > 1:
                raise PlanError(f"{self.kind}: world={self.world} x blocks={self.blocks} is more shards than the "
                                f"{self.size} rows of dim {self.dim}; every rank needs at least one row of each block")
            raise PlanError(f"{self.kind}: world={self.world} is more ranks than the {self.size} rows of dim "
                            f"{self.dim}; every rank needs at least one row")
        for option in ("name", "tensor", "param", "stride"):
            value = getattr(self, option)
            if isinstance(value, str) and not (value.isidentifier() and not keyword.iskeyword(value)):
                raise PlanError(f"{self.kind}: {option}={value!r} is not a Python identifier; it becomes a name in "
                                f"the fused kernel")
        if self.order not in ORDERS:
            raise PlanError(
                f"{self.kind}: unknown order '{self.order}', expected one of "
                + ", ".join(ORDERS)
            )
        if isinstance(self.size, int) and self.size < 0:
            raise PlanError(f"{self.kind}: size must be >= 0, got {self.size}")
        if self.splits is not None:
            if self.kind != "all-to-all":
                raise PlanError(f"{self.kind}: 'splits' is only for all-to-all")
            if len(self.splits) not in (self.world, self.world**2):
                raise PlanError(
                    f"all-to-all: 'splits' needs W = {self.world} or W*W = "
                    f"{self.world**2} sizes, got {len(self.splits)}"
                )

    def binding(self) -> Tensor:
        rank = max(2, self.dim + 1)
        shape = tuple(self.size if i == self.dim else f"D{i}" for i in range(rank))
        strides = tuple(
            self.stride if i == self.dim and self.stride is not None else f"stride_{self.tensor}_{i}"
            for i in range(rank)
        )
        return Tensor(self.tensor, self.param or f"{self.tensor}_ptr", shape, strides)


# (src, dst, step, offset, size) of one chunk before ids are assigned
_Move = tuple[int, int, int, Extent, Extent]


def _shards(o: TemplateOptions) -> list[list[tuple[Extent, Extent]]]:
    """shards[r] = the blocks*chunks_per_rank (offset, size) pieces of rank
    r's shard, block by block.

    The extent is tiled into its blocks, each block into W shards and each
    shard into its pieces, so a rank's pieces always cover exactly its shard
    (the rows the workload's ``shard_bounds`` gives it, in every block),
    even when the extent does not divide by ``blocks * W * chunks_per_rank``."""
    blocks = [(0, o.size)] if o.blocks == 1 else tile(o.size, o.blocks)
    shards: list[list[tuple[Extent, Extent]]] = [[] for _ in range(o.world)]
    for base, extent in blocks:
        for r, (off, size) in enumerate(shift(tile(extent, o.world), base)):
            shards[r] += [(off, size)] if o.chunks_per_rank == 1 else shift(tile(size, o.chunks_per_rank), off)
    return shards


def _local(o: TemplateOptions) -> Iterator[_Move]:
    for r, shard in enumerate(_shards(o)):
        for off, size in shard:
            yield (r, r, 0, off, size)


def _send_block(o: TemplateOptions, src: int, dst: int, block: int, k: int, base: int = 0) -> Iterator[_Move]:
    """Rank ``src`` sends the pieces of shard ``block`` to ``dst`` at round ``k``."""
    pieces = o.blocks * o.chunks_per_rank
    for c, (off, size) in enumerate(_shards(o)[block]):
        yield (src, dst, base + k * pieces + c, off, size)


def _gather_moves(o: TemplateOptions, base: int = 0) -> Iterator[_Move]:
    """Non-local moves of an all-gather, starting at logical step ``base``."""
    w = o.world
    for k in range(w - 1):
        for r in range(w):
            if o.order == "ring":
                yield from _send_block(o, r, (r + 1) % w, (r - k) % w, k, base)
            else:
                yield from _send_block(o, r, (r + k + 1) % w, r, k, base)


def _scatter_moves(o: TemplateOptions) -> Iterator[_Move]:
    """Non-local moves of a reduce-scatter."""
    w = o.world
    for k in range(w - 1):
        for r in range(w):
            if o.order == "ring":
                yield from _send_block(o, r, (r + 1) % w, (r - k - 1) % w, k)
            else:
                dst = (r + k + 1) % w
                yield from _send_block(o, r, dst, dst, k)


def _all_gather(o: TemplateOptions) -> Iterator[_Move]:
    yield from _local(o)
    yield from _gather_moves(o)


def _reduce_scatter(o: TemplateOptions) -> Iterator[_Move]:
    yield from _local(o)
    yield from _scatter_moves(o)


def _all_reduce(o: TemplateOptions) -> Iterator[_Move]:
    yield from _reduce_scatter(o)
    yield from _gather_moves(o, base=(o.world - 1) * o.chunks_per_rank)


def _ring_exchange(o: TemplateOptions) -> Iterator[_Move]:
    if o.order != "ring":
        raise PlanError("ring-exchange: only order=ring is meaningful")
    yield from _all_gather(o)


def a2a_splits(o: TemplateOptions) -> list[list[Extent]]:
    """split[s][d]: elements rank s sends to rank d."""
    w = o.world
    if o.splits is None:
        row = [size for _, size in tile(o.size, w)]
        return [list(row) for _ in range(w)]
    if len(o.splits) == w:
        return [list(o.splits) for _ in range(w)]
    return [list(o.splits[s * w:(s + 1) * w]) for s in range(w)]


def _all_to_all(o: TemplateOptions) -> Iterator[_Move]:
    """Direct all-to-all (``order`` is ignored): at round k rank s sends its
    block for rank (s+k) % W; blocks land in the receiver's output ordered by
    source rank."""
    w, cpr = o.world, o.chunks_per_rank
    split = a2a_splits(o)
    for k in range(w):
        for s in range(w):
            d = (s + k) % w
            base = total([split[t][d] for t in range(s)])
            for c, (off, size) in enumerate(shift(tile(split[s][d], cpr), base)):
                yield (s, d, 0 if k == 0 else (k - 1) * cpr + c, off, size)


TEMPLATES: dict[str, Callable[[TemplateOptions], Iterator[_Move]]] = {
    "all-gather": _all_gather,
    "reduce-scatter": _reduce_scatter,
    "all-reduce": _all_reduce,
    "all-to-all": _all_to_all,
    "ring-exchange": _ring_exchange,
}
"""Template name -> generator of its moves."""


def template(kind: str, world: int, *, tensor: str = "a", dim: int = 0, size: Extent = "M",
             chunks_per_rank: int = 1, blocks: int = 1, order: str = "ring",
             splits: tuple[Extent, ...] | None = None, name: str | None = None, param: str | None = None,
             stride: str | int | None = None) -> TemplateOptions:
    """The typed form of the spec ``kind{world=W key=value ...}``: the same
    options with the same defaults, ``size`` and ``splits`` bounded and
    normalized as a spec's are (:func:`~syncopate.ir.plans.expr.user_extent`).
    Code that builds a plan (the bench, a library caller) passes this to
    :func:`syncopate.ir.plans.load.load` instead of writing a spec string."""
    if kind not in TEMPLATES:
        raise PlanError(f"unknown plan template '{kind}'; expected one of {', '.join(TEMPLATES)}")
    return TemplateOptions(kind=kind, world=world, tensor=tensor, dim=dim, size=user_extent(size),
                           chunks_per_rank=chunks_per_rank, blocks=blocks, order=order,
                           splits=None if splits is None else tuple(user_extent(s) for s in splits),
                           name=name, param=param, stride=stride)


def instantiate(options: TemplateOptions) -> Plan:
    """The (unverified) plan of a template; empty chunks are dropped."""
    moves = [m for m in TEMPLATES[options.kind](options) if not is_empty(m[4])]
    moves.sort(key=lambda m: (m[0] != m[1], m[2], m[0], m[1]))
    chunks = tuple(
        Chunk(i, options.tensor, options.dim, normalize(off), normalize(size), src, dst, step)
        for i, (src, dst, step, off, size) in enumerate(moves)
    )
    splits = None
    if options.kind == "all-to-all":
        splits = tuple(normalize(x) for row in a2a_splits(options) for x in row)
    return Plan(
        options.name or DEFAULT_NAMES[options.kind],
        options.kind,
        options.world,
        (options.binding(),),
        chunks,
        splits,
    )
