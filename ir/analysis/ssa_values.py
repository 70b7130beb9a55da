"""What an SSA value of tile IR is underneath, for the address analyses.

Looking through the ops that keep a value (:func:`strip`: retypes,
broadcasts, ``x * 1``; :func:`unhinted`: also Triton's value hints and
widening casts), and reading what is left: the kernel parameter it is
(:func:`param_name`), the integer constant (:func:`int_const`), its block
rank even where the frontend could not type it (:func:`block_rank`).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i32, i64
from xdsl.ir import BlockArgument, OpResult, SSAValue

from syncopate.dialects import tile
from syncopate.ir.analysis import helper_rows


def strip(value: SSAValue) -> SSAValue:
    """Look through value-preserving ops: retypes, broadcasts, and a product
    with the integer constant 1 (``stride_am * 1``, which users write to
    make a stride's type explicit)."""
    while isinstance(value, OpResult):
        op = value.op
        if isinstance(op, (tile.RetypeOp, tile.BroadcastOp)):
            value = op.src
        elif isinstance(op, tile.MulOp) and _is_one(op.rhs):
            value = op.lhs
        elif isinstance(op, tile.MulOp) and _is_one(op.lhs):
            value = op.rhs
        else:
            break
    return value


def _is_one(value: SSAValue) -> bool:
    """Whether ``value`` is the integer constant 1 (through retypes)."""
    while isinstance(value, OpResult) and isinstance(value.op, tile.RetypeOp):
        value = value.op.src
    return (isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp)
            and isinstance(value.op.value, IntegerAttr) and value.op.value.value.data == 1)


HINTS = ("tl.multiple_of", "tl.max_contiguous", "tl.max_constancy")


def unhinted(value: SSAValue) -> SSAValue:
    """Look through value-preserving ops, compiler hints
    (``tl.max_contiguous(tl.multiple_of(offs, B), B)`` is ``offs``) and
    widening casts of an index (``offs.to(tl.int64)``, which Liger and
    FlagGems write against int32 overflow: every integer keeps its value in
    int64; a narrowing or bit cast could change it, and is not looked
    through)."""
    value = strip(value)
    while isinstance(value, OpResult):
        op = value.op
        if isinstance(op, tile.CallOp) and op.callee.data in HINTS:
            value = strip(op.arguments[0])
        elif isinstance(op, tile.CastOp) and op.dtype == i64 and not (op.bitcast is not None and op.bitcast.value.data):
            value = strip(op.src)
        else:
            break
    return value


def param_name(value: SSAValue) -> str | None:
    """The kernel parameter ``value`` is, if it is one."""
    value = strip(value)
    if isinstance(value, BlockArgument) and isinstance(value.owner.parent_op(), tile.FuncOp):
        func = value.owner.parent_op()
        assert isinstance(func, tile.FuncOp)
        return func.arg_names[value.index]
    return None


def block_rank(value: SSAValue) -> int:
    """Block rank of ``value``: from its type, or for ``!tile.any`` (values the
    frontend could not type, e.g. computed from a load) from the ops that
    made it."""
    if isinstance(value.type, tile.BlockType):
        return tile.rank_of(value.type)
    if not isinstance(value.type, tile.AnyValueType) or not isinstance(value, OpResult):
        return 0
    op = value.op
    if isinstance(op, tile.ArangeOp):
        return 1
    if isinstance(op, tile.ExpandDimsOp):
        return block_rank(op.src) + 1
    if isinstance(op, tile.BroadcastOp):
        return len(op.shape)
    if isinstance(op, (tile.TwoOperandOp, tile.AddPtrOp, tile.CmpOp)):
        return max(block_rank(v) for v in op.operands)
    if isinstance(op, (tile.RetypeOp, tile.UnaryOp, tile.CastOp)):
        return block_rank(op.operands[0])
    if isinstance(op, tile.LoadOp):
        return block_rank(op.ptr)
    if isinstance(op, tile.CallJitOp):
        returned = helper_rows.returned_value(value)
        return block_rank(returned) if returned is not None else 0
    if isinstance(op, tile.WhereOp) or (isinstance(op, tile.CallOp) and op.callee.data in (*CLAMPS, "tl.clamp", *HINTS)):
        return max((block_rank(v) for v in op.operands), default=0)
    return 0


CLAMPS = {"tl.minimum": True, "tl.maximum": False}


def int_const(value: SSAValue) -> int | None:
    value = strip(value)
    if isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp):
        attr = value.op.value
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def widens_integer(op: tile.CastOp) -> bool:
    """A cast of an integer to a 64-bit integer, which keeps its value."""
    source = strip(op.src).type
    return (op.bitcast is None and op.dtype == i64
            and (source in (i32, i64) or isinstance(source, (tile.ScalarType, tile.ConstexprType))))
