"""The emitter prints each op by the rule its class has in one of two tables
(lowering/triton_emitter.py: EXPRESSIONS, STATEMENTS): every tile op has
exactly one, so a new op is printed deliberately or refused by name."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, scf

from syncopate.dialects import tile
from syncopate.lowering import triton_emitter as emitter

# ops printed by no rule: a func is the `def` itself, and an undef is the value
# a constexpr `if` arm leaves unbound (never written)
NOT_PRINTED = {tile.FuncOp, tile.UndefOp}


@pytest.mark.parametrize("op_class", sorted(tile.Tile.operations, key=lambda c: c.name), ids=lambda c: c.name)
def test_every_tile_op_has_one_rule(op_class):
    rules = [table for table in (emitter.EXPRESSIONS, emitter.STATEMENTS) if emitter.rule_for(table, op_class)]
    assert len(rules) == (0 if op_class in NOT_PRINTED else 1)


def test_a_rule_is_found_through_the_base_class():
    """tile.BinaryOp's rule prints every binary operator; an own entry would win."""
    assert emitter.rule_for(emitter.EXPRESSIONS, tile.AddOp) is emitter.EXPRESSIONS[tile.BinaryOp]
    assert emitter.rule_for(emitter.EXPRESSIONS, arith.ConstantOp) is emitter.EXPRESSIONS[tile.LiteralOp]
    assert emitter.rule_for(emitter.STATEMENTS, scf.ForOp) is emitter.FunctionEmitter.for_loop
    assert emitter.rule_for(emitter.EXPRESSIONS, scf.ForOp) is None
