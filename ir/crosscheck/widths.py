"""Which integer values an address is built from, and in which width the
device computes them.

Triton computes integer arithmetic in 32 bits unless an operand is 64-bit:
a ``.to(tl.int64)`` cast, or a kernel argument whose value does not fit
int32 at that launch. Addition, subtraction and multiplication wrap modulo
2**32, so a chain of them gives the true value whenever that value fits
int32, whatever its intermediates do (ring arithmetic). An address is then
the modelled one when

* every ``tile.addptr`` offset computed in 32 bits has a true value in
  int32 (the pointer sum itself is 64-bit), and
* in an offset widened with an explicit cast, every 32-bit value that
  meets the 64-bit part (the cast's operand, the 32-bit operand of a mixed
  operation) has a true value in int32: it wrapped before it was widened
  otherwise.

:func:`address_terms` lists those values for one pointer, and
:func:`compared_values` the 32-bit values a mask compares (a mask decides
which lanes touch memory, so its comparisons must see true values too). A value this module
cannot show to be 64-bit is taken as 32-bit, so its range is checked: the
check is never skipped by a guess. A loaded integer (``ids``) is exempt
where it is an offset itself or the operand of a widening cast
(``ids.to(tl.int64)``): it holds an int32 read from memory. Written for ir/crosscheck/addresses.py; it reads the tile IR
alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import BlockArgument, Operation, SSAValue

from syncopate.dialects import tile

_WIDE_DTYPES = ("i64", "int64", "ui64", "uint64")
# ops whose integer result combines integer operands with Triton's promotion
_ARITH = (tile.AddOp, tile.SubOp, tile.MulOp, tile.NegOp, tile.FloorDivOp, tile.ModOp, tile.CdivOp)
# ops that pass a value through, changing only its shape or static type
_SHAPE = (tile.ExpandDimsOp, tile.BroadcastOp, tile.SplatOp, tile.RetypeOp)


def _is_wide_cast(op: Operation) -> bool:
    if not isinstance(op, tile.CastOp) or op.bitcast is not None:
        return False
    dtype = op.dtype
    text = dtype.data if hasattr(dtype, "data") and isinstance(dtype.data, str) else str(dtype)
    return isinstance(dtype, IntegerType) and dtype.width.data == 64 or text.strip('"') in _WIDE_DTYPES


class Widths:
    """Static widths of one kernel's integer values (memoised)."""

    def __init__(self) -> None:
        self._wide: dict[SSAValue, bool] = {}

    def wide(self, v: SSAValue) -> bool:
        """``v`` is computed in 64 bits at every launch: it is, or is
        derived by arithmetic or shape ops from, an explicit 64-bit cast or
        constant. False where that is not shown (block arguments, helper
        results, loads)."""
        if v not in self._wide:
            self._wide[v] = False  # cycles through loop-carried values stay 32-bit
            self._wide[v] = self._compute(v)
        return self._wide[v]

    def _compute(self, v: SSAValue) -> bool:
        op = v.owner
        if isinstance(v, BlockArgument) or not isinstance(op, Operation):
            return False
        if _is_wide_cast(op):
            return True
        if isinstance(op, arith.ConstantOp):
            return isinstance(op.result.type, IntegerType) and op.result.type.width.data == 64
        if isinstance(op, _ARITH + _SHAPE):
            return any(self.wide(x) for x in op.operands)
        if isinstance(op, tile.WhereOp):
            return self.wide(op.true_value) or self.wide(op.false_value)
        if isinstance(op, tile.CallOp) and op.operands:  # min / max
            return any(self.wide(x) for x in op.operands)
        return False


@dataclass
class AddressTerms:
    """What the address of one access is built from: ``parts``, the
    ``tile.addptr`` offsets, each with whether it is computed in 64 bits and
    whether it is a value read from memory; ``meets``, the 32-bit values
    that meet a 64-bit part; ``carried``, whether the pointer passes a loop
    (an increment is then added once per iteration, not once)."""

    parts: list[tuple[SSAValue, bool, bool]] = field(default_factory=list)
    meets: list[SSAValue] = field(default_factory=list)
    carried: bool = False


def address_terms(ptr: SSAValue, widths: Widths | None = None) -> AddressTerms:
    """The integer values the address ``ptr`` is built from (module
    docstring), each once, in the order found."""
    widths = widths or Widths()
    found = AddressTerms()
    seen: set[SSAValue] = set()

    def pointer(v: SSAValue) -> None:
        if v in seen:
            return
        seen.add(v)
        if isinstance(v, BlockArgument):
            sources = _carried_sources(v)
            found.carried = found.carried or bool(sources)
            for source in sources:
                pointer(source)
            return
        op = v.owner
        if isinstance(op, tile.AddPtrOp):
            pointer(op.ptr)
            wide = widths.wide(op.offset)
            found.parts.append((op.offset, wide, _loaded(op.offset)))
            if wide:
                meets(op.offset)
        elif isinstance(op, tile.WhereOp):
            pointer(op.true_value)
            pointer(op.false_value)
        elif isinstance(op, scf.IfOp):
            index = list(op.results).index(v)
            for region in (op.true_region, op.false_region):
                if region.blocks and isinstance(region.block.last_op, scf.YieldOp):
                    pointer(region.block.last_op.operands[index])
        elif isinstance(op, _SHAPE):
            pointer(op.operands[0])

    def meets(v: SSAValue) -> None:
        """The 32-bit operands that meet the 64-bit value ``v``."""
        if v in seen:
            return
        seen.add(v)
        op = v.owner
        if not isinstance(op, Operation):
            return
        if _is_wide_cast(op):
            if not _loaded(op.src) and not _constexpr(op.src) and op.src not in found.meets:
                found.meets.append(op.src)
            return
        operands = (op.true_value, op.false_value) if isinstance(op, tile.WhereOp) else op.operands
        for x in operands:
            if widths.wide(x):
                meets(x)
            elif not _constexpr(x) and x not in found.meets:
                found.meets.append(x)

    pointer(ptr)
    return found


def compared_values(mask: SSAValue, widths: Widths | None = None) -> list[SSAValue]:
    """The 32-bit values a mask compares (``rows < M`` gives ``rows``), each
    once: a mask decides which lanes touch memory, so a compared value that
    wrapped would let through a lane the proof never saw. Constants,
    parameters, program ids, aranges and values read from memory always fit."""
    widths = widths or Widths()
    found: dict[SSAValue, None] = {}
    seen: set[SSAValue] = set()
    todo = [mask]
    while todo:
        v = todo.pop()
        if v in seen or not isinstance(v.owner, Operation):
            continue
        seen.add(v)
        op = v.owner
        if isinstance(op, tile.CmpOp):
            found.update({x: None for x in (op.lhs, op.rhs)
                          if not widths.wide(x) and not _constexpr(x) and not _loaded(x)})
        elif isinstance(op, (tile.AndOp, tile.NotOp) + _SHAPE):
            todo += list(op.operands)
    return list(found)


def _carried_sources(arg: BlockArgument) -> list[SSAValue]:
    """A loop-carried value's initial value and the value each iteration
    yields for it (``scf.for``); nothing for other block arguments."""
    loop = arg.block.parent_op()
    if not isinstance(loop, scf.ForOp) or arg.index == 0:
        return []
    i = arg.index - 1
    sources = [loop.iter_args[i]]
    last = arg.block.last_op
    if isinstance(last, scf.YieldOp):
        sources.append(last.operands[i])
    return sources


def _loaded(v: SSAValue) -> bool:
    """``v`` is a block of integers read from memory (through shape ops):
    it holds int32 values by construction."""
    op = v.owner
    while isinstance(op, _SHAPE):
        op = op.operands[0].owner
    return isinstance(op, tile.LoadOp)


def _constexpr(v: SSAValue) -> bool:
    """A value that always fits its width: a kernel parameter (one that does
    not fit int32 reaches the kernel as int64), a constant, a program id, a
    program count or an ``arange`` (Triton bounds grids and blocks)."""
    if isinstance(v, BlockArgument):
        return isinstance(v.block.parent_op(), tile.FuncOp)
    return isinstance(v.type, tile.ConstexprType) or isinstance(
        v.owner, (arith.ConstantOp, tile.ProgramIdOp, tile.NumProgramsOp, tile.ArangeOp))
