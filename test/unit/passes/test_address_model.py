"""Units of the independent address verifier (ir/crosscheck): its prover and
the lane model it rests on."""

from __future__ import annotations

import sympy
from xdsl.parser import Parser

from syncopate.ir.context import make_context
from syncopate.ir.crosscheck.addresses import Evaluator, Ptr, check
from syncopate.ir.crosscheck.intops import Sel
from syncopate.ir.crosscheck.prove import le, lift

B, M, P = sympy.symbols("B M P", integer=True, positive=True)


def test_le_proves_through_min_and_max_and_refuses_what_does_not_hold():
    assert le(P * B + sympy.Min(B - 1, M - P * B - 1) + 1, sympy.Min(M, P * B + B))
    assert le(sympy.Max(0, P - 1), P)
    assert not le(P * B + B, P * B + B - 1)
    assert not le(M, B)  # unrelated sizes: not provable either way


def test_lift_moves_min_and_max_out_of_negated_terms():
    # the where-clamp's piece `B - Max(0, M - B*P)` rows against `B*P + B - M`
    assert lift(B - sympy.Max(0, M - B * P)) == sympy.Min(B, B * P + B - M)
    piece = sympy.Min(1, sympy.Max(0, B - sympy.Max(0, M - B * P)))
    wait = sympy.Min(1, sympy.Max(0, B * P + B - M))
    assert le(piece, wait)


def test_le_uses_a_fact_alone_and_only_where_it_holds():
    # a mask term `P + 1 < M` (P + 2 - M <= 0) bounds the wait clipped at M
    fact = P + 2 - M
    assert not le(P + 2, sympy.Min(M, P + 2))
    assert le(P + 2, sympy.Min(M, P + 2), facts=(fact,))
    assert not le(P + 3, sympy.Min(M, P + 3), facts=(fact,))


def test_sel_is_non_negative_only_when_both_choices_are():
    x = sympy.Symbol("x", integer=True)
    assert Sel(0, P).is_nonnegative
    assert Sel(0, x).is_nonnegative is None
    assert Sel(P, P) == P  # one value: no choice


def test_waits_chain_in_any_order():
    from syncopate.ir.crosscheck.addresses import Sync, _covered

    first, second = object(), object()
    # rows [P + 1, P + B + 1): the first wait [P, Min(M, P + B)) alone stops
    # at M, the second [P + 1, P + B + 1) covers them whatever comes first
    syncs = [Sync(first, P, sympy.Min(M, P + B)), Sync(second, P + 1, P + B + 1)]
    assert _covered(P + 1, P + B + 1, syncs)
    assert not _covered(P, P + B + 1, syncs[1:])


HEADER = ('tile.func @k(%x_ptr: !tile.ptr, %s: !tile.scalar, %BLOCK: !tile.constexpr) attributes '
          '{param_names = ["x_ptr", "s", "BLOCK"], decorators = ["triton.jit"]} {')
IR = """builtin.module {
  """ + HEADER + """
    %zero = arith.constant 0 : i32
    %offs = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %r = tile.expand_dims %offs, 1 : i64 : !tile.block<?xi32> -> !tile.block<?x1xi32>
    %c = tile.expand_dims %offs, 0 : i64 : !tile.block<?xi32> -> !tile.block<1x?xi32>
    %rs = tile.mul %r, %s : !tile.block<?x1xi32>, !tile.scalar -> !tile.block<?x1xi32>
    %o = tile.add %rs, %c : !tile.block<?x1xi32>, !tile.block<1x?xi32> -> !tile.block<?x?xi32>
    %p = tile.addptr %x_ptr, %o : !tile.ptr, !tile.block<?x?xi32> -> !tile.block<?x?x!tile.ptr>
    %x = tile.load %p : !tile.block<?x?x!tile.ptr> -> !tile.any
    tile.return
  }
}"""


def test_one_arange_on_two_axes_gives_two_independent_lanes():
    """``offs[:, None] * s + offs[None, :]`` is a grid, not a diagonal: the
    two uses of one arange must not share a symbol (that would cancel them)."""
    module = Parser(make_context(), IR).parse_module()
    func = next(iter(module.ops))
    ev = Evaluator(func, set())
    load = next(op for op in func.walk() if op.name == "tile.load")
    ptr = ev.of(load.ptr)
    assert isinstance(ptr, Ptr) and ptr.base == "x_ptr"
    lanes = {s.name for s in ptr.offset.free_symbols if "@" in s.name}
    assert lanes == {"l0@0", "l0@1"}


def test_no_plan_no_accesses():
    assert check(Parser(make_context(), IR).parse_module()).accesses == []


def test_triton_integer_ops_have_the_sign_of_truncation():
    from syncopate.ir.crosscheck.intops import TCdiv, TDiv, TMod, evaluate, parse

    n = sympy.Symbol("n", integer=True, nonnegative=True)
    s = sympy.Symbol("s", integer=True)  # unknown sign
    assert TMod(n, s).is_nonnegative  # the dividend's sign, whatever the divisor's
    assert not TMod(s, M).is_nonnegative
    assert TDiv(B + n - 1, B).is_nonnegative and TCdiv(n, B).is_nonnegative
    assert not TDiv(n, s).is_nonnegative
    assert le(sympy.Integer(0), B * TMod(TMod(n, B), sympy.Min(B, M - n)))  # a Min inside is no case split
    # C semantics, not Python's: -7 % 3 == -1, -7 // 2 == -3
    assert evaluate(parse("TMod(a, 3)"), {"a": -7}) == -1 and evaluate(parse("TDiv(a, 2)"), {"a": -7}) == -3
    assert evaluate(parse("TCdiv(N, S) + Min(E, I)"), {"N": 10, "S": 4, "E": 5, "I": 9}) == 8
    assert evaluate(parse("TMod(a, 0)"), {"a": 1}) is None
