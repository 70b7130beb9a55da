"""Symbolic extents: ints or expression strings over shape symbols, held as sympy.

An *extent* (chunk offset or size, tensor shape entry, all-to-all split) is an
``int`` or a string such as ``"M/4"``, ``"2*(M/8)"`` or ``"M - 3*(M/4)"``.
Grammar: integers, identifiers (shape symbols such as ``M``, ``K`` and the world
size ``W``), ``+ - * / %``, unary minus and parentheses. ``/`` is integer
(floor) division and ``%`` its remainder, as in Triton index arithmetic on
non-negative values. Symbols stand for non-negative integers.

The strings are the user-visible syntax (plan specs, ``chunk.chunk`` attributes,
error messages). Underneath, each string is parsed once into a sympy
expression (``/`` becomes ``floor(a/b)``, ``%`` becomes ``Mod``), so that:

* :func:`simplify` returns the canonical form, printed back in the same
  syntax (``(M/2)/2 + M/2 - (M/2)/2`` becomes ``M/2``);
* :func:`equal` decides equality for every binding of the symbols by
  comparing canonical forms. It is sound but not complete: ``True`` means
  equal everywhere; ``False`` means not *proved* equal (``M - 2*(M/2)``
  and ``M % 2`` are equal but have different canonical forms);
* :func:`evaluate` substitutes concrete values.

:func:`add`, :func:`sub`, :func:`mul`, :func:`div` and :func:`total` build
new extents from old ones and return them simplified.
"""

from __future__ import annotations

import ast
import math
import re
import threading
from collections.abc import Mapping
from functools import lru_cache

import sympy

from syncopate.ir.plans.errors import PlanError

Extent = int | str

_ALLOWED = (
    ast.BinOp, ast.UnaryOp, ast.Name, ast.Load, ast.USub, ast.UAdd,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod,
)


@lru_cache(maxsize=None)
def _symbol(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True, nonnegative=True)


def _floor_div(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    if b == 0:
        raise ZeroDivisionError
    return _nested_floor(sympy.floor(a / b))


def _nested_floor(e: sympy.Expr) -> sympy.Expr:
    """``floor(floor(x)/n) = floor(x/n)`` for a positive integer ``n``, so that
    repeated halving reads ``M/4`` rather than ``(M/2)/2``."""
    if isinstance(e, sympy.floor):
        num, den = sympy.fraction(sympy.together(e.args[0]))
        if den.is_Integer and den > 0 and isinstance(num, sympy.floor):
            return sympy.floor(num.args[0] / den)
    return e


MAX_EXTENT_TERMS = 32  # integers and symbols of an extent a user writes (more: minutes at W = 72)
MAX_EXTENT_DIVISIONS = 16  # nested / and % in it: sympy's floors grow slow with depth
# Extents built from those (a chunk's offset, a size minus its other chunks)
# are longer: what any extent may hold before it is parsed at all.
_LIMIT_TERMS, _LIMIT_DIVISIONS, _LIMIT_TOKENS = 512, MAX_EXTENT_DIVISIONS + 8, 4096
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+|\S")


def _shown(text: str) -> str:
    """An extent in a message: whole if short, else its start and its length."""
    return repr(text) if len(text) <= 60 else f"{text[:40]!r}... ({len(text)} characters)"


def _bounded(text: str, tree: ast.expr, max_terms: int, max_divisions: int) -> None:
    """Refuse an extent too large to analyse: Python's parser and the
    recursive walks over it (here and in sympy) fail or crawl on
    thousands of terms or deep nesting."""
    terms = sum(1 for node in ast.walk(tree) if isinstance(node, (ast.Name, ast.Constant)))
    if terms > max_terms:
        raise PlanError(f"extent {_shown(text)} has {terms} terms; an extent may have at most {max_terms} "
                        "(integers and symbols)")
    depth: dict[int, int] = {id(tree): 0}
    for node in ast.walk(tree):  # breadth first: a parent before its children
        level = depth[id(node)] + (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)))
        if level > max_divisions:
            raise PlanError(f"extent {_shown(text)} nests more than {max_divisions} divisions (/ or %) inside "
                            "one another")
        for child in ast.iter_child_nodes(node):
            depth[id(child)] = level


_PARSE_LOCK = threading.Lock()


def parse_expression(text: str) -> ast.Expression:
    """``ast.parse(text, mode="eval")`` under a lock: CPython 3.11's parser
    is not safe to enter from several threads at once ("AST constructor
    recursion depth mismatch"), and launches evaluate extents and rows on
    the host from any thread (the GPU world's stand-in tests run ranks as
    threads)."""
    with _PARSE_LOCK:
        return ast.parse(text, mode="eval")


def _tree(text: str) -> ast.expr:
    tokens = len(_TOKEN.findall(text))
    if tokens > _LIMIT_TOKENS:
        raise PlanError(f"extent {_shown(text)} has {tokens} tokens, more than any extent may have ({_LIMIT_TOKENS}; "
                        f"one in a plan spec at most {MAX_EXTENT_TERMS} integers and symbols)")
    try:
        tree = parse_expression(text.strip()).body
    except SyntaxError as err:
        raise PlanError(f"malformed extent expression {_shown(text)}: {err.msg}") from None
    except (RecursionError, MemoryError):
        raise PlanError(f"extent {_shown(text)} is nested too deeply to parse") from None
    for node in ast.walk(tree):
        if not (isinstance(node, _ALLOWED) or (isinstance(node, ast.Constant) and type(node.value) is int)):
            raise PlanError(
                f"extent expression {_shown(text)} may only use integers, symbols, "
                "+ - * / % and parentheses"
            )
    return tree


def check_size(extent: Extent) -> None:
    """Raise PlanError if an extent a user wrote is longer or deeper than
    ``MAX_EXTENT_TERMS`` / ``MAX_EXTENT_DIVISIONS`` allow."""
    if isinstance(extent, str):
        _bounded(extent, _tree(extent), MAX_EXTENT_TERMS, MAX_EXTENT_DIVISIONS)


@lru_cache(maxsize=4096)
def _parse(text: str) -> sympy.Expr:
    tree = _tree(text)
    _bounded(text, tree, _LIMIT_TERMS, _LIMIT_DIVISIONS)

    def build(node: ast.expr) -> sympy.Expr:
        if isinstance(node, ast.Constant):
            return sympy.Integer(node.value)
        if isinstance(node, ast.Name):
            return _symbol(node.id)
        if isinstance(node, ast.UnaryOp):
            value = build(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        assert isinstance(node, ast.BinOp)
        lhs, rhs = build(node.left), build(node.right)
        if isinstance(node.op, ast.Add):
            return lhs + rhs
        if isinstance(node.op, ast.Sub):
            return lhs - rhs
        if isinstance(node.op, ast.Mult):
            return lhs * rhs
        if rhs == 0:
            raise PlanError(f"division by zero in extent {text!r}")
        if isinstance(node.op, ast.Mod):
            return sympy.Mod(lhs, rhs)
        return _floor_div(lhs, rhs)

    try:
        return build(tree)
    except RecursionError:
        raise PlanError(f"extent {_shown(text)} is nested too deeply to analyse") from None


def to_sympy(extent: Extent) -> sympy.Expr:
    """The sympy expression of ``extent`` (raises PlanError if malformed)."""
    if isinstance(extent, int):
        return sympy.Integer(extent)
    return _parse(extent)


# ---------------------------------------------------------------- printing


def _atom(e: sympy.Expr) -> str:
    """``e`` as an operand of ``*``, ``/`` or ``%`` (parenthesized if compound)."""
    text = _format(e)
    if e.is_Symbol or (e.is_Integer and e >= 0):
        return text
    return f"({text})"


def _format_mul(e: sympy.Expr) -> str:
    coeff, rest = e.as_coeff_Mul()
    factors: list[str] = []
    for base, power in rest.as_powers_dict().items():
        if not (power.is_Integer and power > 0):
            raise PlanError(f"extent {e} is not expressible as an extent (power {power})")
        factors += [_atom(base)] * int(power)
    factors.sort()
    if coeff != 1:
        if not coeff.is_Integer:
            raise PlanError(f"extent {e} has a fractional coefficient")
        factors.insert(0, str(coeff) if coeff > 0 else f"({coeff})")
    return "*".join(factors)


def _format(e: sympy.Expr) -> str:
    if e.is_Integer:
        return str(int(e))
    if e.is_Symbol:
        return e.name
    if isinstance(e, sympy.floor):
        num, den = sympy.fraction(sympy.together(e.args[0]))
        return f"{_atom(num)}/{_atom(den)}"
    if isinstance(e, sympy.Mod):
        return f"{_atom(e.args[0])} % {_atom(e.args[1])}"
    if e.is_Add:
        text = ""
        terms = e.as_ordered_terms()
        # positive terms first, so that ``M/2 - M/4`` does not read ``-(M/4) + M/2``
        terms.sort(key=lambda t: bool(t.as_coeff_Mul()[0].is_negative))
        for term in terms:
            coeff, rest = term.as_coeff_Mul()
            if text and coeff.is_negative:
                text += " - " + _format(-term)
            elif text:
                text += " + " + _format(term)
            else:
                text = _format(term)
        return text
    if e.is_Mul:
        if e.as_coeff_Mul()[0] == -1:
            return "-" + _atom(-e)
        return _format_mul(e)
    if e.is_Pow:
        return _format_mul(e)
    raise PlanError(f"extent {e} is not expressible as an extent")


@lru_cache(maxsize=4096)
def from_sympy(e: sympy.Expr) -> Extent:
    """``e`` back in extent syntax: an int if constant, else a string."""
    if e.is_Integer:
        return int(e)
    return _format(e)


# ---------------------------------------------------------------- queries


@lru_cache(maxsize=4096)
def _names(text: str) -> frozenset[str]:
    return frozenset(n.id for n in ast.walk(parse_expression(text.strip())) if isinstance(n, ast.Name))


def symbols(extent: Extent) -> frozenset[str]:
    """The shape symbols an extent mentions as written (empty for ints); a
    symbol that cancels (``M - M``) is still reported, so that an unknown one
    is refused."""
    if isinstance(extent, int):
        return frozenset()
    _parse(extent)
    return _names(extent)


def check(extent: Extent) -> None:
    """Raise PlanError if ``extent`` is not a well-formed extent."""
    if not isinstance(extent, int):
        _parse(extent)


def simplify(extent: Extent) -> Extent:
    """The canonical form of ``extent`` (an int if it is constant)."""
    return from_sympy(to_sympy(extent))


def equal(a: Extent, b: Extent) -> bool:
    """True if ``a`` and ``b`` are equal for every binding of their symbols.

    False means "not proved equal": canonical forms are compared, which is
    exact for sums and products of symbols but not for every identity
    between floors and remainders."""
    return sympy.expand(to_sympy(a) - to_sympy(b)) == 0


def evaluate(extent: Extent, env: Mapping[str, int]) -> int:
    """Evaluate ``extent`` with the symbol values in ``env``."""
    if isinstance(extent, int):
        return extent
    e = _parse(extent)
    values = {}
    for s in e.free_symbols:
        if s.name not in env:
            raise PlanError(f"unknown symbol {s.name!r} in extent {extent!r}")
        values[s] = sympy.Integer(env[s.name])
    for name in _names(extent) - {s.name for s in e.free_symbols}:
        if name not in env:
            raise PlanError(f"unknown symbol {name!r} in extent {extent!r}")
    result = e.xreplace(values)
    if not result.is_Integer:
        raise PlanError(f"division by zero in extent {extent!r} at {dict(env)}")
    return int(result)


def normalize(extent: Extent) -> Extent:
    """A user-given extent in canonical form (``" 8 "`` becomes ``8``)."""
    return simplify(extent.strip() if isinstance(extent, str) else extent)


def user_extent(extent: Extent) -> Extent:
    """An extent from a plan spec, bounded (:func:`check_size`) and normalized."""
    check_size(extent)
    return normalize(extent)


# ---------------------------------------------------------------- builders


def mul(k: int, extent: Extent) -> Extent:
    """``k * extent``, simplified."""
    return from_sympy(k * to_sympy(extent))


def add(a: Extent, b: Extent) -> Extent:
    """``a + b``, simplified."""
    return from_sympy(to_sympy(a) + to_sympy(b))


def sub(a: Extent, b: Extent) -> Extent:
    """``a - b``, simplified."""
    return from_sympy(to_sympy(a) - to_sympy(b))


def total(extents: list[Extent]) -> Extent:
    """Sum of ``extents``, simplified (equal terms collected: ``2*(M/4)``)."""
    return from_sympy(sympy.Add(*(to_sympy(e) for e in extents)))


def div(a: Extent, n: int) -> Extent:
    """Floor division ``a / n`` by a positive constant, simplified."""
    if n < 1:
        raise PlanError(f"extent {a!r} divided by {n}: the divisor must be positive")
    return from_sympy(_floor_div(to_sympy(a), sympy.Integer(n)))


# ---------------------------------------------------------------- order

_MAX_RESIDUES = 512  # residue combinations tried before giving up a proof


def provably_nonnegative(extent: Extent | sympy.Expr) -> bool:
    """True if ``extent >= 0`` for every binding of its (non-negative) symbols.

    Every symbol ``S`` under a floor or remainder is written ``L*t + r``,
    with ``L`` the product of the divisors and ``t >= 0``; for each residue
    ``r`` in ``[0, L)`` the floors resolve, leaving a polynomial in the
    ``t``s, which is non-negative if all its coefficients are. Exact for
    sums of single symbols (every plan template), sound otherwise. False
    means "not proved" (also for a symbolic divisor, or too many residues)."""
    return _nonnegative(extent if isinstance(extent, sympy.Expr) else to_sympy(extent))


@lru_cache(maxsize=4096)
def _nonnegative(e: sympy.Expr) -> bool:
    modulus = _modulus(e)
    if modulus is None:
        return False
    inner = sorted({s for a in e.atoms(sympy.floor, sympy.Mod) for s in a.free_symbols}, key=str)
    if modulus ** len(inner) > _MAX_RESIDUES:
        return False
    if _affine(e):
        return _affine_nonnegative(e, modulus)
    quotients = [sympy.Dummy(f"t_{s.name}", integer=True, nonnegative=True) for s in inner]
    for residues in _product(range(modulus), len(inner)):
        value = e.xreplace({s: modulus * t + r for s, t, r in zip(inner, quotients, residues)})
        value = sympy.expand(value)
        if value.atoms(sympy.floor, sympy.Mod):
            return False
        if not value.free_symbols:
            if value < 0:
                return False
            continue
        poly = sympy.Poly(value, *sorted(value.free_symbols, key=str))
        if any(c < 0 for c in poly.coeffs()):
            return False
    return True


def _affine(e: sympy.Expr) -> bool:
    """No powers and no product of two symbols anywhere: within one residue
    class of the modulus, ``e`` is then affine in the quotients."""
    for node in sympy.preorder_traversal(e):
        if isinstance(node, sympy.Pow):
            return False
        if isinstance(node, sympy.Mul) and sum(1 for a in node.args if a.free_symbols) > 1:
            return False
    return True


def _affine_nonnegative(e: sympy.Expr, modulus: int) -> bool:
    """Exact test for an affine ``e``: per residue class, the value at the
    class's smallest point and the slope along every symbol are >= 0."""
    names = sorted(e.free_symbols, key=str)
    for residues in _product(range(modulus), len(names)):
        point = dict(zip(names, residues))
        base = e.xreplace({s: sympy.Integer(v) for s, v in point.items()})
        if base < 0:
            return False
        for s in names:
            moved = e.xreplace({t: sympy.Integer(v + (modulus if t == s else 0)) for t, v in point.items()})
            if moved < base:
                return False
    return True


@lru_cache(maxsize=4096)  # each floor's numerator holds the floors inside it: uncached, nested floors take 2**depth calls
def _modulus(e: sympy.Expr) -> int | None:
    """A period after which every floor and remainder in ``e`` repeats its
    residue pattern: the lcm over them of divisor times the period of the
    numerator (None for a symbolic divisor)."""
    period = 1
    for atom in e.atoms(sympy.floor, sympy.Mod):
        num, den = sympy.fraction(sympy.together(atom.args[0])) if isinstance(atom, sympy.floor) else atom.args
        inner = _modulus(num)
        if inner is None or not (den.is_Integer and den > 0):
            return None
        period = math.lcm(period, int(den) * inner)
    return period


def _product(values: range, n: int) -> list[tuple[int, ...]]:
    combos: list[tuple[int, ...]] = [()]
    for _ in range(n):
        combos = [c + (v,) for c in combos for v in values]
    return combos
