"""Symbolic extents: ints or affine-like expression strings over shape symbols.

An *extent* (chunk offset or size, tensor shape entry, all-to-all split) is an
``int`` or a string such as ``"M/4"``, ``"2*(M/8)"`` or ``"M - 3*(M/4)"``.
Grammar: integers, identifiers (shape symbols such as ``M``, ``K`` and the world
size ``W``), ``+ - * / %``, unary minus and parentheses. ``/`` is integer
(floor) division, as in Triton index arithmetic on non-negative values.

Expressions are evaluated, never simplified: the verifier checks symbolic
plans by evaluating them at several concrete bindings of their symbols.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import lru_cache

from syncopate.ir.plans.errors import PlanError

Extent = int | str

_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a // b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}


@lru_cache(maxsize=4096)
def _parse(text: str) -> ast.expr:
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as err:
        raise PlanError(f"malformed extent expression {text!r}: {err.msg}") from None
    for node in ast.walk(tree):
        ok = isinstance(
            node,
            (ast.BinOp, ast.UnaryOp, ast.Name, ast.Load, ast.USub, ast.UAdd)
            + tuple(_BINOPS),
        ) or (isinstance(node, ast.Constant) and type(node.value) is int)
        if not ok:
            raise PlanError(
                f"extent expression {text!r} may only use integers, symbols, "
                "+ - * / % and parentheses"
            )
    return tree


def symbols(extent: Extent) -> frozenset[str]:
    """The shape symbols an extent mentions (empty for ints)."""
    if isinstance(extent, int):
        return frozenset()
    return frozenset(
        n.id for n in ast.walk(_parse(extent)) if isinstance(n, ast.Name)
    )


def check(extent: Extent) -> None:
    """Raise PlanError if ``extent`` is not a well-formed extent."""
    if not isinstance(extent, int):
        _parse(extent)


def evaluate(extent: Extent, env: Mapping[str, int]) -> int:
    """Evaluate ``extent`` with the symbol values in ``env``."""
    if isinstance(extent, int):
        return extent

    def ev(node: ast.expr) -> int:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise PlanError(f"unknown symbol {node.id!r} in extent {extent!r}")
            return env[node.id]
        if isinstance(node, ast.UnaryOp):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        assert isinstance(node, ast.BinOp)
        lhs, rhs = ev(node.left), ev(node.right)
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and rhs == 0:
            raise PlanError(f"division by zero in extent {extent!r} at {dict(env)}")
        return _BINOPS[type(node.op)](lhs, rhs)

    return ev(_parse(extent))


def normalize(extent: Extent) -> Extent:
    """Turn a string that is a plain integer literal into an int."""
    if isinstance(extent, str):
        stripped = extent.strip()
        if stripped.lstrip("-").isdigit():
            return int(stripped)
        check(stripped)
        return stripped
    return extent


def _atom(extent: Extent) -> str:
    """Parenthesize a compound expression so it can be an operand."""
    text = str(extent)
    return text if text.isidentifier() or text.lstrip("-").isdigit() else f"({text})"


def mul(k: int, extent: Extent) -> Extent:
    """``k * extent``, folded when either side is a constant."""
    if isinstance(extent, int):
        return k * extent
    if k == 0:
        return 0
    return extent if k == 1 else f"{k}*{_atom(extent)}"


def add(a: Extent, b: Extent) -> Extent:
    """``a + b``, folded when both are constants or one is zero."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if a == 0:
        return b
    if b == 0:
        return a
    return f"{a} + {b}"


def sub(a: Extent, b: Extent) -> Extent:
    """``a - b``, folded when both are constants or ``b`` is zero."""
    if isinstance(a, int) and isinstance(b, int):
        return a - b
    if b == 0:
        return a
    text = str(b)
    top = _parse(text) if isinstance(b, str) else None
    if isinstance(top, ast.BinOp) and isinstance(top.op, (ast.Add, ast.Sub)):
        text = f"({text})"
    return f"{a} - {text}"


def total(extents: list[Extent]) -> Extent:
    """Sum of ``extents`` with equal symbolic terms collected (``2*(M/4)``)."""
    const = sum(e for e in extents if isinstance(e, int))
    counts: dict[str, int] = {}
    for e in extents:
        if isinstance(e, str):
            counts[e] = counts.get(e, 0) + 1
    result: Extent = 0
    for term, k in counts.items():
        result = add(result, mul(k, term))
    return add(result, const)


def div(a: Extent, n: int) -> Extent:
    """Floor division ``a / n`` by a positive constant."""
    if isinstance(a, int):
        return a // n
    return a if n == 1 else f"{_atom(a)}/{n}"
