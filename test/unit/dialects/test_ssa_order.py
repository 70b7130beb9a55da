"""Uses that a pass can create but IR text cannot express: xDSL's parser
refuses a name from a region that does not enclose the use, but a rewrite
that moves an op or replaces an operand is not parsed. The tile verifier
(dialects/ssa_order.py) refuses them all the same."""

from __future__ import annotations

import pytest
from xdsl.dialects import scf
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from syncopate.dialects import tile
from syncopate.ir.context import make_context

IR = """
builtin.module {
  tile.func @k(%p: !tile.ptr) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %c1 step %c1 : i32 {
      %inner = tile.add %i, %c1 : i32, i32 -> i32
      scf.yield
    }
    %out = tile.add %c1, %c1 : i32, i32 -> i32
    tile.store %out, %p : i32, !tile.ptr
    tile.return
  }
}
"""


def _module():
    module = Parser(make_context(), IR).parse_module()
    module.verify()
    return module


def _ops(module):
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    inner = next(op for op in loop.body.block.ops if isinstance(op, tile.AddOp))
    store = next(op for op in module.walk() if isinstance(op, tile.StoreOp))
    return loop, inner, store


def test_a_value_from_a_loop_body_used_after_the_loop_is_refused():
    module = _module()
    _, inner, store = _ops(module)
    store.operands[1] = inner.res  # the stored value
    with pytest.raises(VerifyException, match="tile.store uses %inner, defined inside a region of scf.for "
                                              "that does not enclose the use"):
        module.verify()


def test_a_value_of_another_function_is_refused_by_xdsl_itself():
    """tile.func is IsolatedFromAbove: xDSL's trait verifier catches this one."""
    module, other = _module(), _module()
    _, inner, _ = _ops(other)
    _, _, mine = _ops(module)
    mine.operands[1] = next(op for op in other.walk() if isinstance(op, tile.AddOp) and op is not inner).res
    with pytest.raises(VerifyException, match="value defined out of its IsolatedFromAbove parent"):
        module.verify()


def test_an_op_moved_before_its_operand_is_refused():
    module = _module()
    loop, _, _ = _ops(module)
    out = next(op for op in loop.parent_block().ops if isinstance(op, tile.AddOp))
    out.detach()
    loop.parent_block().insert_op_before(out, loop.parent_block().first_op)
    with pytest.raises(VerifyException, match="tile.add uses %c1 before its definition"):
        module.verify()
