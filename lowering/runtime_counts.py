"""Keeping a fused kernel's chunk-table row counts runtime values.

Triton specializes an integer argument equal to 1 into a constant. A chunk
table of one row (a world of one, a plan of one chunk) would then fold a
helper's walk over the table (``for i in range(n)``) into straight-line
code, which changes how Triton compiles the code around it: a tile signal's
barrier and release atomic straight inside a flattened tile loop
(``tl.range(..., flatten=True)``) stop Triton from keeping the loop's wgmma
in flight, which makes such a GEMM several times slower than with two rows.
So the counts are listed in the jit decorator's ``do_not_specialize``: a
launch compiles the same code whatever the row count.
"""

from __future__ import annotations

import ast

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr

from syncopate.dialects import tile
from syncopate.ir.contract import ABI_ATTR, AbiKey, ChunkTable


def table_counts(func: tile.FuncOp) -> list[str]:
    """The row-count parameters of the chunk tables ``func`` takes (its ``chunk.abi``)."""
    abi = func.attributes.get(ABI_ATTR)
    if not isinstance(abi, DictionaryAttr) or not isinstance(tables := abi.data.get(AbiKey.TABLES), ArrayAttr):
        return []
    return [ChunkTable.from_attr(t).count for t in tables.data if isinstance(t, DictionaryAttr)]


def unspecialized(decorators: list[str], names: list[str]) -> list[str]:
    """``decorators`` with ``names`` added to the innermost one's
    ``do_not_specialize`` when it is Triton's jit (``triton.jit``, ``jit``,
    called or not; wrappers such as autotune sit outside it). Anything else
    is returned unchanged."""
    if not names or not decorators:
        return decorators
    *outer, inner = decorators
    node = ast.parse(inner, mode="eval").body
    target = node.func if isinstance(node, ast.Call) else node
    if not ((isinstance(target, ast.Name) and target.id == "jit")
            or (isinstance(target, ast.Attribute) and target.attr == "jit")):
        return decorators
    call = node if isinstance(node, ast.Call) else ast.Call(node, [], [])
    added = [ast.Constant(n) for n in names]
    for keyword in call.keywords:
        if keyword.arg == "do_not_specialize":
            keyword.value = ast.List([ast.Starred(keyword.value, ast.Load()), *added], ast.Load())
            break
    else:
        call.keywords.append(ast.keyword("do_not_specialize", ast.List(added, ast.Load())))
    return [*outer, ast.unparse(call)]
