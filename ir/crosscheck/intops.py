"""Triton's integer ``%``, ``//`` and ``cdiv`` as sympy functions whose sign
is known where Triton's semantics fix it, and nothing else.

Triton (like C) truncates: ``a % b`` has the sign of ``a`` and ``a // b``
rounds toward zero. So for ``a >= 0`` (and ``b != 0``, which is a device
fault rather than a value) ``a % b`` and, with ``b >= 0``, ``a // b`` and
``cdiv(a, b)`` are ``>= 0``. The functions stay uninterpreted otherwise:
two applications are equal only when their arguments are, so a wait and an
access computed from the same ``tl.program_id`` arithmetic agree.

``Sel(x, y[, d])`` is a value that is ``x`` or ``y`` (``tl.where``, an
``scf.if`` result); addresses.py checks an access once per choice.

``Wrap(x, m)`` is ``x % m`` where ``x`` varies over a block (a lane
symbol): the row of the tutorial's ``(pid_m * BLOCK_M + tl.arange(0,
BLOCK_M)) % M``. ir/crosscheck/addresses.py splits its rows into the two
pieces a wrap can give.
"""

from __future__ import annotations

import functools
import re

import sympy


def nonnegative(e: sympy.Expr) -> bool:
    """``e >= 0`` provably, with integers: a positive integer symbol is
    ``1 + (a symbol >= 0)``, so ``BLOCK + N - 1`` is non-negative."""
    e = sympy.expand(e)
    ones = {s: sympy.Dummy(integer=True, nonnegative=True) + 1 for s in e.free_symbols
            if s.is_integer and s.is_positive}
    return bool((sympy.expand(e.xreplace(ones)) if ones else e).is_nonnegative)


class _IntOp(sympy.Function):
    """An integer operation of two operands: folded where both are
    integers, ``>= 0`` where the dividend is (and, for ``both_signs``, the
    divisor too)."""

    is_integer = True
    both_signs = False

    @staticmethod
    def fold(a: int, b: int) -> int:
        raise NotImplementedError

    @classmethod
    def eval(cls, a, b):
        if isinstance(a, sympy.Integer) and isinstance(b, sympy.Integer) and b != 0:
            return sympy.Integer(cls.fold(int(a), int(b)))
        return None

    def _eval_is_nonnegative(self):
        a, b = self.args
        return True if nonnegative(a) and (not self.both_signs or nonnegative(b)) else None


class TMod(_IntOp):
    """``a % b`` of two scalars (Triton's truncating remainder)."""

    @staticmethod
    def fold(a: int, b: int) -> int:
        return a - b * _trunc_div(a, b)


class Wrap(TMod):
    """``a % b`` with ``a`` varying over a block's lanes."""


class TDiv(_IntOp):
    """``a // b`` (Triton's truncating division). Where ``a`` is ``b``
    times a polynomial ``q`` with integer coefficients it is ``q``, since
    dividing an exact multiple truncates nothing: the iteration number
    ``(iv - lb) // step`` of a loop whose ``iv`` is ``lb + step * j``, as
    insert-signals writes a walked pointer's wait."""

    both_signs = True

    @staticmethod
    def fold(a: int, b: int) -> int:
        return _trunc_div(a, b)

    @classmethod
    def eval(cls, a, b):
        folded = super().eval(a, b)
        if folded is not None or b == 0:
            return folded
        return _multiple_of(a, b)


def _multiple_of(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
    """``q`` with ``a == b * q`` and ``q`` an integer polynomial, or None."""
    numerator, denominator = sympy.fraction(sympy.together(sympy.expand(a) / b))
    if denominator != 1:
        return None
    q = sympy.expand(numerator)
    if any(not term.as_coeff_Mul()[0].is_Integer for term in sympy.Add.make_args(q)):
        return None
    return q


class TCdiv(_IntOp):
    """``tl.cdiv(a, b)``: ``(a + b - 1) // b``."""

    both_signs = True

    @staticmethod
    def fold(a: int, b: int) -> int:
        return _trunc_div(a + b - 1, b)


class Sel(sympy.Function):
    """``tl.where(c, x, y)`` (or the result of an ``scf.if``): ``x`` or
    ``y``; with a third argument ``d``, ``x`` exactly where ``d <= 0`` (a
    condition on one block index, kept so that each of the two pieces can be
    checked under its own clamp). Equal only to itself; ``>= 0`` where both
    values are."""

    is_integer = True

    @classmethod
    def eval(cls, x, y, *cond):
        return x if x == y else None

    def _eval_is_nonnegative(self):
        return True if nonnegative(self.args[0]) and nonnegative(self.args[1]) else None


FUNCTIONS = {"tile.mod": TMod, "tile.floordiv": TDiv, "tile.cdiv": TCdiv}
OPAQUE = (TMod, TDiv, TCdiv, Wrap, Sel)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def evaluate(expr: sympy.Expr, values: dict[str, int]) -> int | None:
    """``expr`` at integer ``values`` of its symbols (by name), with Triton's
    integer semantics; None when a symbol has no value or a divisor is 0."""

    def go(e: sympy.Expr) -> int:
        if isinstance(e, sympy.Integer):
            return int(e)
        if isinstance(e, sympy.Symbol):
            return values[e.name]
        args = [go(a) for a in e.args]
        if isinstance(e, sympy.Add):
            return sum(args)
        if isinstance(e, sympy.Mul):
            out = 1
            for a in args:
                out *= a
            return out
        if isinstance(e, sympy.Min):
            return min(args)
        if isinstance(e, sympy.Max):
            return max(args)
        if isinstance(e, _IntOp):
            return type(e).fold(*args)
        if isinstance(e, sympy.Pow) and args[1] >= 0:
            return args[0] ** args[1]
        raise KeyError(type(e).__name__)

    try:
        return go(sympy.sympify(expr))
    except (KeyError, ZeroDivisionError):
        return None


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> sympy.Expr:
    """The expression :func:`str` printed (names of kernel parameters and
    the functions above); memoised, since a launch check parses the same
    recorded bounds at every new set of sizes."""
    names = {"TMod": TMod, "Wrap": Wrap, "TDiv": TDiv, "TCdiv": TCdiv, "Min": sympy.Min, "Max": sympy.Max}
    # every other name is a symbol: sympify would read N, S, E, I or Q as its own objects
    for name in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text):
        names.setdefault(name, sympy.Symbol(name, integer=True))
    return sympy.sympify(text, locals=names)
