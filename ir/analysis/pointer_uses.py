"""Every memory op a kernel parameter's pointer can reach, modelled or not.

:func:`access_patterns.access_of` models the address forms it understands and
returns None for the rest, so a caller that only looks at what it models
would silently skip an access (a pointer carried through a loop, ``xp +=
BK * s`` inside the K loop, or one passed to a jit helper). This module
follows the pointer's data flow instead, through every op result, ``scf``
loop and branch arguments and yields, and lists each memory op whose pointer
(or descriptor) operand derives from the parameter, plus each ``tile.call_jit``
that receives it. The analysis then requires a model for every one of them:
what it cannot bound is refused, never ignored.

Loads end the flow: their result is data, not an address.
"""

from __future__ import annotations

from dataclasses import dataclass

from syncopate.dialects import tile
from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue

MEMORY_OPS = (tile.LoadOp, tile.StoreOp, tile.AtomicRMWOp, tile.AtomicCASOp)
DESCRIPTOR_OPS = (tile.DescriptorLoadOp, tile.DescriptorStoreOp, tile.DescriptorAtomicOp)


@dataclass(frozen=True)
class PointerUse:
    """A memory op (or jit call) reached from the parameter; ``carried`` when
    the flow went through a loop- or branch-carried value."""

    op: Operation
    carried: bool


def _address_operand(op: Operation) -> SSAValue | None:
    if isinstance(op, MEMORY_OPS):
        return op.ptr
    if isinstance(op, DESCRIPTOR_OPS):
        return op.desc
    return None


def _successors(op: Operation, index: int) -> list[tuple[SSAValue, bool]]:
    """Values that carry operand ``index`` of ``op`` on; the flag says the
    step goes through a region argument or a yield (a carried value)."""
    if isinstance(op, scf.ForOp):
        k = index - 3  # lb, ub, step come first
        if k < 0:
            return []
        return [(op.body.block.args[k + 1], True), (op.results[k], True)]
    if isinstance(op, scf.WhileOp):
        return [(op.before_region.block.args[index], True)]
    if isinstance(op, scf.YieldOp):
        parent = op.parent_op()
        out: list[tuple[SSAValue, bool]] = []
        if parent is not None and index < len(parent.results):
            out.append((parent.results[index], True))
        if isinstance(parent, scf.ForOp):
            out.append((parent.body.block.args[index + 1], True))
        if isinstance(parent, scf.WhileOp) and op.parent_region() is parent.after_region:
            out.append((parent.before_region.block.args[index], True))
        return out
    if isinstance(op, scf.ConditionOp):
        parent = op.parent_op()
        k = index - 1  # the condition itself comes first
        if not isinstance(parent, scf.WhileOp) or k < 0:
            return []
        return [(parent.after_region.block.args[k], True), (parent.results[k], True)]
    if isinstance(op, tile.LoadOp | tile.DescriptorLoadOp | tile.DescriptorBlockSizeOp):
        return []  # loaded data, or a descriptor's block size, is not an address
    return [(r, False) for r in op.results]


def pointer_uses(param: SSAValue) -> list[PointerUse]:
    """Memory ops whose address derives from ``param`` and jit calls that
    receive it, in discovery order."""
    seen: dict[SSAValue, bool] = {param: False}
    work = [param]
    found: dict[Operation, bool] = {}
    while work:
        value = work.pop()
        carried = seen[value]
        for use in list(value.uses):
            op = use.operation
            if _address_operand(op) is value or isinstance(op, tile.CallJitOp):
                found[op] = found.get(op, False) or carried
                if isinstance(op, tile.CallJitOp):
                    continue
            for successor, step in _successors(op, use.index):
                flag = carried or step
                if successor not in seen or (flag and not seen[successor]):
                    seen[successor] = flag
                    work.append(successor)
    return [PointerUse(op, carried) for op, carried in found.items()]
