"""Extent expressions: parsing, simplification, symbolic equality, evaluation."""

from __future__ import annotations

import itertools
import re
import time

import pytest

from syncopate.ir.plans import expr
from syncopate.ir.plans.errors import PlanError
from syncopate.ir.plans.expr import (
    add,
    check,
    div,
    equal,
    evaluate,
    mul,
    normalize,
    provably_nonnegative,
    simplify,
    sub,
    symbols,
    to_sympy,
    total,
)


@pytest.mark.parametrize(
    "text,canonical",
    [
        ("(M/2)/2 + M/2 - (M/2)/2", "M/2"),
        ("(M/2)/2", "M/4"),
        ("M - M + 4", 4),
        ("M/4 + M/4", "2*(M/4)"),
        ("3*(M - 3*(M/4))", "3*M - 9*(M/4)"),
        ("-M + 4", "4 - M"),
        ("M % 4 * 2", "2*(M % 4)"),
        ("(M+1)/2", "(M + 1)/2"),
        ("M*N/2", "(M*N)/2"),
        (" 8 ", 8),
        ("M", "M"),
    ],
)
def test_simplify_gives_the_canonical_form(text, canonical) -> None:
    assert simplify(text) == canonical


@pytest.mark.parametrize(
    "text",
    ["M/4", "2*(M/8)", "M - 3*(M/4)", "K*M + 2", "(M + 1)/2", "M % 3", "M/N", "-(M/2)", "M*M", "4 - M"],
)
def test_canonical_text_reparses_to_itself(text) -> None:
    canonical = simplify(text)
    assert simplify(canonical) == canonical
    assert to_sympy(canonical) == to_sympy(text)


def test_simplified_builders_keep_the_value() -> None:
    """add/sub/mul/div/total simplify, and the result evaluates like the
    unsimplified arithmetic for every binding tried (odd sizes included)."""
    quarter = div("M", 4)
    assert quarter == "M/4"
    assert div(div("M", 2), 2) == "M/4"
    assert add(quarter, quarter) == "2*(M/4)"
    assert sub("M", mul(3, quarter)) == "M - 3*(M/4)"
    assert total([quarter, quarter, 5, quarter, 1]) == "3*(M/4) + 6"
    assert sub(add("M/2", "(M/2)/2"), "(M/2)/2") == "M/2"
    for m in range(0, 40):
        env = {"M": m}
        assert evaluate(sub("M", mul(3, quarter)), env) == m - 3 * (m // 4)
        assert evaluate(div(sub("M", "M/2"), 2), env) == (m - m // 2) // 2


def test_equal_is_symbolic() -> None:
    assert equal("M/2 + M/2", "2*(M/2)")
    assert equal("(M/2)/2", "M/4")
    assert equal("M - (M - K)", "K")
    assert equal(6, "2*3")
    assert not equal("M/2", "M - M/2")  # differ for odd M
    assert not equal("M", "N")


def test_equal_agrees_with_evaluation_where_it_answers_true() -> None:
    pairs = [("2*(M/4)", "M/4 + M/4"), ("M - 3*(M/4)", "M - M/4 - 2*(M/4)"), ("(M/2)/2", "M/4")]
    for a, b in pairs:
        assert equal(a, b)
        for m, k in itertools.product(range(0, 20), range(1, 4)):
            assert evaluate(a, {"M": m, "K": k}) == evaluate(b, {"M": m, "K": k})


@pytest.mark.parametrize(
    "text,env,value",
    [
        ("M/4", {"M": 10}, 2),
        ("M - 3*(M/4)", {"M": 10}, 4),
        ("M % 4", {"M": 10}, 2),
        ("M/N", {"M": 10, "N": 3}, 3),
        ("2*W + 1", {"W": 4}, 9),
        (7, {}, 7),
    ],
)
def test_evaluate_with_bindings(text, env, value) -> None:
    assert evaluate(text, env) == value


def test_evaluate_refuses_an_unknown_symbol() -> None:
    with pytest.raises(PlanError, match="unknown symbol 'K' in extent 'M \\+ K'"):
        evaluate("M + K", {"M": 4})


def test_evaluate_refuses_an_unknown_symbol_that_cancels() -> None:
    with pytest.raises(PlanError, match="unknown symbol 'K'"):
        evaluate("M + K - K", {"M": 4})


def test_evaluate_reports_division_by_zero() -> None:
    with pytest.raises(PlanError, match="division by zero in extent 'M/N'"):
        evaluate("M/N", {"M": 4, "N": 0})
    with pytest.raises(PlanError, match="division by zero in extent 'M/0'"):
        check("M/0")


@pytest.mark.parametrize("text", ["M ** 2", "f(M)", "M.x", "M < 2", "1.5", "M +"])
def test_malformed_extents_are_refused(text) -> None:
    with pytest.raises(PlanError, match="extent"):
        check(text)


def test_symbols_are_those_written() -> None:
    assert symbols("M/4 + K - K") == {"M", "K"}
    assert symbols(3) == frozenset()


def test_normalize_turns_integer_strings_into_ints() -> None:
    assert normalize("12") == 12
    assert normalize("-3") == -3
    assert normalize("M/2 + M/2") == "2*(M/2)"
    assert normalize(5) == 5


def test_div_refuses_a_non_positive_divisor() -> None:
    with pytest.raises(PlanError, match="divisor must be positive"):
        div("M", 0)


@pytest.mark.parametrize(
    "text,proved",
    [
        ("M/2", True),
        ("M - M/2", True),
        ("M - 3*(M/4)", True),
        ("M/2 - M/4", True),
        ("M - 2*(M/2)", True),
        ("M % 3", True),
        ("(M - M/2)/2", True),
        ("K + M - M/2", True),
        ("2*(M/4) - M/2", False),  # -1 at M = 2
        ("M/2 - (M - M/2)", False),  # -1 at odd M
        ("M - 1", False),  # -1 at M = 0
        ("K - M/2", False),
        ("M/N", False),  # symbolic divisor: not attempted
        (-2, False),
        (0, True),
    ],
)
def test_provably_nonnegative(text, proved) -> None:
    assert provably_nonnegative(text) is proved
    if proved:
        for m, k in itertools.product(range(0, 33), range(0, 3)):
            assert evaluate(text, {"M": m, "K": k}) >= 0


def _nested_divisions(n: int) -> str:
    text = "M"
    for _ in range(n):
        text = f"({text}+1)/3"
    return text


@pytest.mark.parametrize("text, message", [
    ("+".join(["M"] * 1200), "has 1200 terms; an extent may have at most 32 (integers and symbols)"),
    ("+".join(f"M{i}" for i in range(5000)), "has 9999 tokens, more than any extent may have (4096; "
                                             "one in a plan spec at most 32 integers and symbols)"),
    ("-" * 3000 + "M", "is nested too deeply to"),
    ("M" + "/2" * 17, "nests more than 16 divisions (/ or %) inside one another"),
])
def test_an_extent_too_large_to_analyse_is_one_plan_error(text, message) -> None:
    """1,200 terms used to be a RecursionError, 5,000 one inside Python's
    parser, 20 nested floors minutes of sympy."""
    start = time.perf_counter()
    with pytest.raises(PlanError, match=re.escape(message)) as info:
        expr.user_extent(text)
    assert len(str(info.value).splitlines()) == 1 and len(str(info.value)) < 300, str(info.value)
    assert time.perf_counter() - start < 5


def test_extents_at_the_bounds_are_accepted() -> None:
    assert expr.user_extent("+".join(f"M{i}" for i in range(32)))
    assert expr.user_extent(_nested_divisions(15))
    assert expr.user_extent("M" + "/2" * 16) == "M/65536"


def test_built_extents_may_be_longer_than_written_ones() -> None:
    """A template's chunk offsets and sizes are built from the spec's extents."""
    size = "+".join(f"M{i}" for i in range(32))
    assert expr.symbols(expr.sub(size, expr.div(size, 72))) == expr.symbols(size)


def test_nested_floors_are_decided_in_polynomial_time() -> None:
    """_modulus recursed into every floor's numerator uncached: 2**depth calls."""
    start = time.perf_counter()
    expr.provably_nonnegative(_nested_divisions(15))  # not proved: 3**15 residues
    assert time.perf_counter() - start < 5
