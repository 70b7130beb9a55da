"""Index blocks ``offset + tl.arange(0, extent)`` that the frontend writes on
the user's behalf (block pointers lowered to addresses, index blocks rebuilt
from a carried start), and the literal tests they need.

The expressions go through the importer's own ``expr`` with private names
bound to the values, so they get exactly the types and ops user code gets,
whatever name the user imported ``triton.language`` as.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue

if TYPE_CHECKING:
    from syncopate.ir.frontend.importer_context import ImporterContext


def literal_int(value: SSAValue) -> int | None:
    """The integer ``value`` is a literal of, if it is one."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def same_value(a: SSAValue, b: SSAValue) -> bool:
    # the same literal written twice (`(BLOCK_M, 64)` in two make_block_ptr calls) is the same value
    return a is b or (literal_int(a) is not None and literal_int(a) == literal_int(b))


@contextmanager
def bound_names(imp: ImporterContext, values: dict[str, SSAValue]) -> Iterator[None]:
    """Bind ``values`` to private names while an expression is imported."""
    saved = {name: imp.env[name] for name in values if name in imp.env}
    imp.env.update(values)
    try:
        yield
    finally:
        for name in values:
            imp.env.pop(name, None)
        imp.env.update(saved)


def parse_at(text: str, at: ast.AST) -> ast.expr:
    """``text`` as an expression located at ``at`` (errors name the user's line)."""
    tree = ast.parse(text, mode="eval").body
    for node in ast.walk(tree):
        ast.copy_location(node, at)
    return tree


def index_block(imp: ImporterContext, offset: SSAValue, extent: SSAValue, at: ast.AST) -> SSAValue:
    """``offset + tl.arange(0, extent)`` (the arange alone for a literal 0 offset)."""
    with bound_names(imp, {"__extent": extent}):
        arange = imp.tl_calls.tl_arange(parse_at("__arange(0, __extent)", at))  # type: ignore[arg-type]
    if literal_int(offset) == 0:
        return arange
    with bound_names(imp, {"__offset": offset, "__range": arange}):
        return imp.ssa(imp.exprs.expr(parse_at("__offset + __range", at)), at)
