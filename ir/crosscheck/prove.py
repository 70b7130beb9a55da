"""Inequalities over sympy expressions with ``Min`` / ``Max``, proved for
every value of their symbols (a proof, never a sample).

Written for ir/crosscheck/addresses.py, independently of
ir/analysis/symbolic.py: ``le(a, b)`` is True only when ``a <= b`` holds for
every integer value of the symbols that meets their sympy assumptions.
"""

from __future__ import annotations

import sympy

from syncopate.ir.crosscheck.intops import OPAQUE, Sel, nonnegative


def lift(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with ``Min`` / ``Max`` moved above sums and above products
    by a factor of provable sign (``c + Min(a, b) = Min(c + a, c + b)``,
    ``-Max(a, b) = Min(-a, -b)``),
    so the case split of :func:`le` sees them at the top."""
    expr = sympy.expand(expr)
    if isinstance(expr, sympy.Add):
        terms = [lift(t) if isinstance(t, sympy.Mul) else t for t in expr.args]
        for i, term in enumerate(terms):
            if isinstance(term, (sympy.Min, sympy.Max)):
                rest = sympy.Add(*(a for j, a in enumerate(terms) if j != i))
                return type(term)(*(lift(rest + a) for a in term.args), evaluate=False)
    if isinstance(expr, sympy.Mul):
        for i, factor in enumerate(expr.args):
            if isinstance(factor, (sympy.Min, sympy.Max)):
                rest = sympy.Mul(*(a for j, a in enumerate(expr.args) if j != i))
                if rest.is_nonnegative:
                    return type(factor)(*(lift(rest * a) for a in factor.args), evaluate=False)
                if rest.is_nonpositive:  # -Max(a, b) = Min(-a, -b)
                    flipped = sympy.Min if isinstance(factor, sympy.Max) else sympy.Max
                    return flipped(*(lift(rest * a) for a in factor.args), evaluate=False)
    return expr


def le(a: sympy.Expr, b: sympy.Expr, depth: int = 0, facts: tuple[sympy.Expr, ...] = ()) -> bool:
    """``a <= b`` for every value of the symbols with ``d <= 0`` for each
    ``d`` of ``facts`` (False: not proved). A fact is used alone: ``b - a
    >= 0`` follows from ``b - a + d >= 0``."""
    if depth > 12:  # the case split is exponential in nested Min/Max; give up
        return False
    a, b = lift(a), lift(b)
    if isinstance(b, Sel):  # one of its two values, whichever it is
        return all(le(a, x, depth + 1, facts) for x in b.args[:2])
    if isinstance(a, Sel):
        return all(le(x, b, depth + 1, facts) for x in a.args[:2])
    if isinstance(b, sympy.Min):
        return all(le(a, x, depth + 1, facts) for x in b.args)
    if isinstance(a, sympy.Max):
        return all(le(x, b, depth + 1, facts) for x in a.args)
    if isinstance(b, sympy.Max) and any(le(a, x, depth + 1, facts) for x in b.args):
        return True
    if isinstance(a, sympy.Min) and any(le(x, b, depth + 1, facts) for x in a.args):
        return True
    diff = sympy.expand(b - a)
    for d in (0, *facts):
        shifted = _sealed(sympy.expand(diff + d))
        if not shifted.has(sympy.Min, sympy.Max) and nonnegative(shifted):
            return True
    return False


def _sealed(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with each application of an integer operation (intops) as
    one symbol of its known sign: a ``Min`` inside its arguments is no case
    to split."""
    calls = expr.atoms(*OPAQUE)
    if not calls:
        return expr
    return expr.xreplace({c: sympy.Dummy(integer=True, nonnegative=True) if c.is_nonnegative
                          else sympy.Dummy(integer=True) for c in calls})


def lt(a: sympy.Expr, b: sympy.Expr, facts: tuple[sympy.Expr, ...] = ()) -> bool:
    """``a < b`` for every (integer) value of the symbols (under ``facts``)."""
    return le(a + 1, b, facts=facts)


def equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    return sympy.expand(a - b) == 0
