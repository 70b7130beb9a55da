"""Where a value or op sits among the loops of a kernel: the loops around an
op, whether a value is defined inside an op's regions, and whether it is
the same in every iteration of a loop (loop-invariant)."""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import Pure

from syncopate.dialects import tile


def defining_block(value: SSAValue) -> Block | None:
    if isinstance(value, BlockArgument):
        return value.owner
    return value.op.parent_block() if isinstance(value, OpResult) else None


def enclosing_loops(op: Operation) -> list[Operation]:
    """Loops (scf.for / scf.while) around ``op``, outermost first."""
    loops: list[Operation] = []
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, tile.FuncOp):
        if isinstance(parent, (scf.ForOp, scf.WhileOp)):
            loops.append(parent)
        parent = parent.parent_op()
    return loops[::-1]


def is_defined_inside(value: SSAValue, op: Operation) -> bool:
    """True when ``value`` is defined in a region of ``op``."""
    block = defining_block(value)
    while block is not None:
        parent = block.parent_op()
        if parent is op:
            return True
        if parent is None:
            return False
        block = parent.parent_block()
    return False


def is_loop_invariant(value: SSAValue, loop: Operation) -> bool:
    """``value`` is the same in every iteration of ``loop``: defined outside
    it, or computed inside by pure ops (no regions) from such values."""
    if not is_defined_inside(value, loop):
        return True
    if not isinstance(value, OpResult) or value.op.regions or not value.op.has_trait(Pure):
        return False
    return all(is_loop_invariant(v, loop) for v in value.op.operands)
