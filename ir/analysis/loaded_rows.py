"""Rows read from memory: the range a block of loaded row ids spans.

A gather whose rows come from a table (MoE routing,
``x_ptr + token_ids[:, None] * stride`` with ``token_ids = tl.load(...)``)
reads rows known only once the table is loaded. Its footprint is the range
``[min, max + 1)`` of the ids the tile loaded, which the kernel computes
right after the ids exist: a wait over it holds every row the tile reads
(and perhaps more, a superset is sound for a read). The host cannot
evaluate it (``lo`` is ``?``), so the tile -> chunk graph connects such a
tile to every chunk of the tensor.

The range is computed in int64, so ids a masked load left undefined can
widen the range but never wrap it into a smaller one.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, StringAttr, i64
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import Pure

from syncopate.dialects import tile
from syncopate.ir.analysis import loop_nesting
from syncopate.ir.analysis.ssa_walk import results_reached
from syncopate.ir.contract import ORIGIN_ATTR

ORIGIN = StringAttr("chunk-dependency-analysis")
LOADS = (tile.LoadOp, tile.DescriptorLoadOp)


def reads_memory(value: SSAValue) -> bool:
    """``value`` is computed, through ops without regions, from a load."""
    def follow(result: OpResult) -> tuple[SSAValue, ...]:
        op = result.op
        if isinstance(op, LOADS) or op.regions or not (op.has_trait(Pure) or isinstance(op, tile.CallOp)):
            return ()
        return tuple(op.operands)

    return any(isinstance(result.op, LOADS) for result in results_reached(value, follow))


def row_range(index: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(lo, extent) of the rows a block index of loaded ids spans, as ops
    right after the index is defined: ``lo = min(ids)``, ``extent =
    max(ids) + 1 - lo``, in int64. An index a loop computes from values
    defined before it (``ids[:, None] // TOP_K`` in a loop over the hidden
    dim) is moved before that loop first, so the range, and the wait over
    it, is computed once. Reuses the ops an earlier run added."""
    _hoist_invariant(index)
    for use in index.uses:
        found = _marked(use.operation)
        if isinstance(found, tile.CastOp):
            return _existing(found)
    wide = tile.CastOp(operands=[index], properties={"dtype": i64}, result_types=[tile.AnyValueType()])
    lo = tile.ReduceOp(operands=[wide.res], properties={"kind": StringAttr("min")}, result_types=[i64])
    hi = tile.ReduceOp(operands=[wide.res], properties={"kind": StringAttr("max")}, result_types=[i64])
    one = arith.ConstantOp(IntegerAttr(1, i64))
    past = tile.AddOp(hi.res, one.result, i64)
    extent = tile.SubOp(past.results[0], lo.res, i64)
    ops: list[Operation] = [wide, lo, hi, one, past, extent]
    for op in ops:
        op.attributes[ORIGIN_ATTR] = ORIGIN
    _insert_after(index, ops)
    return lo.res, extent.results[0]


def _hoist_invariant(value: SSAValue) -> None:
    """Move the pure ops computing ``value`` before the outermost loop around
    them that ``value`` does not vary in (loop-invariant code motion of the
    index alone; the ops keep their results, so every use still sees them)."""
    if not isinstance(value, OpResult):
        return
    loop = next((lp for lp in loop_nesting.enclosing_loops(value.op) if loop_nesting.is_loop_invariant(value, lp)), None)
    if loop is not None:
        _move_before(value, loop)


def _move_before(value: SSAValue, loop: Operation) -> None:
    if not (isinstance(value, OpResult) and loop_nesting.is_defined_inside(value, loop)):
        return
    for operand in value.op.operands:
        _move_before(operand, loop)
    value.op.detach()
    Rewriter.insert_op(value.op, InsertPoint.before(loop))


def _marked(op: Operation) -> Operation | None:
    return op if op.attributes.get(ORIGIN_ATTR) == ORIGIN else None


def _existing(wide: tile.CastOp) -> tuple[SSAValue, SSAValue]:
    """(lo, extent) of the ops :func:`row_range` added on ``wide``: the
    ``min`` of it, and the difference that subtracts that ``min``."""
    lo = next(u.operation for u in wide.res.uses
              if isinstance(u.operation, tile.ReduceOp) and u.operation.kind.data == "min")
    extent = next(u.operation for u in lo.res.uses if isinstance(u.operation, tile.SubOp) and _marked(u.operation))
    return lo.res, extent.results[0]


def _insert_after(value: SSAValue, ops: list[Operation]) -> None:
    if isinstance(value, OpResult):
        Rewriter.insert_op(ops, InsertPoint.after(value.op))
    else:
        assert isinstance(value.owner, Block)
        Rewriter.insert_op(ops, InsertPoint.at_start(value.owner))
