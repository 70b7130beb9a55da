"""Every use of an SSA value inside a function comes after its definition.

xDSL's parser resolves a name used before its definition in the same block
(or in a block that encloses the use) as a forward reference, and its
verifier does not check dominance, so IR text such as

    %a = tile.add %b, %b : ...
    %b = arith.constant 1 : i32

or a cycle (`%a` uses `%b`, `%b` uses `%a`) verifies, and the emitter would
print a read of a variable that was never assigned. The tile dialect has
only single-block regions (`tile.func`, `scf.for/if/while`), where dominance
is plain program order: a value is visible from the op after its definition
to the end of its block, nested regions included. A pass that moves an op
out of the region defining its operand breaks the same rule.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.utils.exceptions import VerifyException


def check_definitions_dominate(func: Operation, what: str) -> None:
    """Raise :class:`VerifyException` (prefixed ``what``) at the first operand
    of an op in ``func`` that is not defined before it in an enclosing block."""
    visible: set[SSAValue] = set()

    def visit(block: Block) -> None:
        defined: list[SSAValue] = list(block.args)
        visible.update(block.args)
        for op in block.ops:
            for operand in op.operands:
                if operand not in visible:
                    raise VerifyException(f"{what}: {_problem(op, operand, func)}")
            for region in op.regions:
                for inner in region.blocks:
                    visit(inner)
            visible.update(op.results)
            defined.extend(op.results)
        visible.difference_update(defined)

    for region in func.regions:
        for block in region.blocks:
            visit(block)


def describe(value: SSAValue) -> str:
    """``%name`` when the value has a name, else its position."""
    if value.name_hint:
        return f"%{value.name_hint}"
    if isinstance(value, OpResult):
        return f"result #{value.index} of {value.op.name}"
    assert isinstance(value, BlockArgument)
    parent = value.block.parent_op()
    return f"argument #{value.index} of a block of {parent.name if parent else 'a detached region'}"


def _problem(user: Operation, value: SSAValue, func: Operation) -> str:
    definer = value.op if isinstance(value, OpResult) else None
    if definer is not None and _reaches(definer, user):
        return f"{user.name} uses {describe(value)}, whose definition depends on {user.name}'s own result (a cycle)"
    owner = definer.parent_block() if definer is not None else value.block  # type: ignore[attr-defined]
    if owner is not None and _encloses(owner, user):
        return f"{user.name} uses {describe(value)} before its definition"
    if owner is None or not _inside(owner, func):
        return f"{user.name} uses {describe(value)}, which is not defined in this function"
    scope = owner.parent_op()
    return (
        f"{user.name} uses {describe(value)}, defined inside a region of {scope.name if scope else 'another op'} "
        "that does not enclose the use"
    )


def _reaches(start: Operation, target: Operation) -> bool:
    """Whether ``start`` reads, through operands, a result of ``target`` or of an op nested in it."""
    seen: set[Operation] = set()
    stack = [start]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op is target or target.is_ancestor(op):
            return True
        stack.extend(v.op for v in op.operands if isinstance(v, OpResult))
    return False


def _encloses(block: Block, op: Operation) -> bool:
    """Whether ``op`` lies in ``block``, directly or in a region nested in it."""
    current: Operation | None = op
    while current is not None:
        if current.parent_block() is block:
            return True
        current = current.parent_op()
    return False


def _inside(block: Block, func: Operation) -> bool:
    parent = block.parent_op()
    while parent is not None:
        if parent is func:
            return True
        parent = parent.parent_op()
    return False
