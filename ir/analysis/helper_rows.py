"""Row indices a ``@triton.jit`` helper computes (``rows = tile_rows(pid_m,
BLOCK_M)``, FlagGems' and Liger's small index helpers).

The footprint of an access is built from SSA values of the kernel: a wait
is emitted in the kernel and needs its ``lo`` there. A helper's result is
bounded in the helper's own body (:func:`returned_value`), and the scalar
values the bound is made of (``pid * BLOCK``, ``BLOCK``) are then carried
into the kernel by :func:`carry_into_caller`: the helper's parameters become
the call's operands, and the ops that compute the rest from them are cloned
right before the call.

Assumes: the helper ends in its only ``tile.return``. Guarantees: only
side-effect-free, region-free ops are cloned (no loads, no loops, no nested
calls), so a clone computes in the kernel exactly what the helper computes
from the same operands; anything else raises :class:`NotCarried`, naming
the op.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import Pure, SymbolTable

from syncopate.dialects import tile


class NotCarried(Exception):
    """A helper value that cannot be recomputed in the kernel (its message says why)."""


def callee_of(call: tile.CallJitOp) -> tile.FuncOp | None:
    """The ``tile.func`` a ``tile.call_jit`` calls (None: detached or unknown)."""
    module: Operation | None = call.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    if module is None:
        return None
    callee = SymbolTable.lookup_symbol(module, call.callee)
    return callee if isinstance(callee, tile.FuncOp) else None


def returned_value(result: OpResult) -> SSAValue | None:
    """The value the helper returns as ``result`` of its call, or None when
    ``result`` is no helper call's or the helper has an early return."""
    call = result.op
    if not isinstance(call, tile.CallJitOp):
        return None
    callee = callee_of(call)
    if callee is None:
        return None
    returns = [op for op in callee.walk() if isinstance(op, tile.ReturnOp)]
    last = callee.body.block.last_op
    if len(returns) != 1 or returns[0] is not last or result.index >= len(last.values):
        return None
    return last.values[result.index]


def carry_into_caller(values: Sequence[SSAValue], call: tile.CallJitOp) -> list[SSAValue]:
    """``values`` of the helper ``call`` calls, as values of the caller:
    parameters become the call's operands, and the ops computing the rest
    are cloned (once each) right before the call."""
    callee = callee_of(call)
    assert callee is not None
    params = callee.body.block
    mapped: dict[SSAValue, SSAValue] = {}

    def carry(value: SSAValue) -> SSAValue:
        if value in mapped:
            return mapped[value]
        if isinstance(value, BlockArgument) and value.owner is params:
            mapped[value] = call.arguments[value.index]
            return mapped[value]
        if not isinstance(value, OpResult) or value.op.regions or not value.op.has_trait(Pure):
            what = value.op.name if isinstance(value, OpResult) else "a block argument"
            raise NotCarried(f"the rows come from jit helper '{callee.sym_name.data}' through {what}, which cannot "
                            "be recomputed in the kernel; compute the row start in the kernel")
        op = value.op
        operands = [carry(v) for v in op.operands]
        clone = op.clone()
        for i, operand in enumerate(operands):
            clone.operands[i] = operand
        for result in clone.results:
            result.name_hint = None
        Rewriter.insert_op(clone, InsertPoint.before(call))
        for old, new in zip(op.results, clone.results):
            mapped[old] = new
        return mapped[value]

    return [carry(v) for v in values]
