"""Plain-Python view of a chunk plan, and conversion to and from ``chunk.plan``.

Templates and the porting layer build a :class:`Plan`; the verifier checks a
:class:`Plan`; :func:`to_op` / :func:`from_op` move between it and the IR.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from syncopate.dialects.chunk import ChunkOp, PlanOp, TensorOp, extent_value
from syncopate.ir.plans.expr import Extent


@dataclass(frozen=True)
class Chunk:
    """One ``chunk.chunk``: region [offset, offset+size) along ``dim``."""

    id: int
    tensor: str
    dim: int
    offset: Extent
    size: Extent
    src: int
    dst: int
    step: int
    backend: str = "unset"

    @property
    def is_local(self) -> bool:
        """A local chunk (src == dst) is a rank's own shard; it moves nothing."""
        return self.src == self.dst

    def describe(self) -> str:
        return (
            f"chunk {self.id} (tensor '{self.tensor}', src {self.src}, dst {self.dst}, "
            f"offset {self.offset!r}, size {self.size!r}, step {self.step})"
        )


@dataclass(frozen=True)
class Tensor:
    """One ``chunk.tensor`` binding."""

    name: str
    param: str
    shape: tuple[Extent, ...]
    strides: tuple[Extent, ...]


@dataclass(frozen=True)
class Plan:
    """One ``chunk.plan``."""

    name: str
    kind: str
    world: int
    tensors: tuple[Tensor, ...]
    chunks: tuple[Chunk, ...]
    splits: tuple[Extent, ...] | None = field(default=None)


def to_op(plan: Plan) -> PlanOp:
    """Build the ``chunk.plan`` op (not verified; call ``.verify()``)."""
    ops = [TensorOp(t.name, t.param, t.shape, t.strides) for t in plan.tensors]
    ops += [
        ChunkOp(c.id, c.tensor, c.dim, c.offset, c.size, c.src, c.dst, c.step, c.backend)
        for c in plan.chunks
    ]
    return PlanOp(plan.name, plan.kind, plan.world, ops, plan.splits)


def from_op(op: PlanOp) -> Plan:
    """Read a ``chunk.plan`` op into a :class:`Plan`."""
    tensors = tuple(
        Tensor(t.tensor.data, t.param.data, tuple(t.shape_values), tuple(t.stride_values))
        for t in op.tensors
    )
    chunks = tuple(
        Chunk(
            c.chunk_id.value.data,
            c.tensor.data,
            c.dim.value.data,
            extent_value(c.offset),
            extent_value(c.size),
            c.src.value.data,
            c.dst.value.data,
            c.step.value.data,
            c.backend.data,
        )
        for c in op.chunks
    )
    splits = None
    if op.splits is not None:
        splits = tuple(extent_value(a) for a in op.splits.data)
    return Plan(op.sym_name.data, op.collective, op.world_size, tensors, chunks, splits)
