"""Index blocks ``start + tl.arange(0, B)`` carried through ``if`` branches
and loops as their scalar ``start``.

Why: persistent kernels set a tile's offsets in one branch and use them in
later iterations (``if ki == 0: offs_am = start_m + tl.arange(0, BLOCK_M)``).
Carried as a block, the index at the load is an ``scf.if`` result or a loop
iter arg whose rows the footprint analysis cannot bound. Carried as its start,
the index is rebuilt as ``start + tl.arange(0, B)`` where the branch or loop
hands it on, which the analysis bounds exactly (its ``lo`` computed in the
kernel). The value is the same; ``tl.arange`` costs no memory traffic.

Only blocks whose every incoming value has that form with the same ``B`` are
carried this way; ``B`` must be a kernel parameter or a literal, so that the
rebuilt block can be made after the branch or loop (a constexpr parameter
is one of the function; loops and branches only carry runtime values).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects import arith
from xdsl.dialects.builtin import i64
from xdsl.ir import BlockArgument, SSAValue

from syncopate.dialects import tile
from syncopate.ir.frontend import type_rules as T
from syncopate.ir.frontend.index_blocks import index_block, literal_int, same_value

if TYPE_CHECKING:
    from syncopate.ir.frontend.importer_context import ImporterContext


@dataclass(frozen=True)
class BlockStart:
    """``start + tl.arange(0, extent)``, the start the sum of the scalars
    ``starts`` (none: 0)."""

    starts: tuple[SSAValue, ...]
    extent: SSAValue
    wide: bool = False  # some part was widened to int64: the rebuilt block is int64 too


def _widened(value: SSAValue) -> SSAValue:
    """``value`` seen through casts to int64 (``tl.arange(0, B).to(tl.int64)``,
    ``(start + tl.arange(0, B)).to(tl.int64)``: Unsloth's LONG_INDEXING arm);
    a widening cast keeps every value, and the block is rebuilt in int64
    (``BlockStart.wide``), so what is computed from it stays 64-bit."""
    while _is_widening(value):
        value = value.owner.src  # type: ignore[union-attr]
    return value


def _is_widening(value: SSAValue) -> bool:
    return isinstance(value.owner, tile.CastOp) and value.owner.dtype == i64 and value.owner.bitcast is None


def _zero_arange(value: SSAValue) -> SSAValue | None:
    """``extent`` when ``value`` is ``tl.arange(0, extent)`` with a rebuildable extent."""
    op = _widened(value).owner
    if not isinstance(op, tile.ArangeOp):
        return None
    if literal_int(op.start) != 0:
        return None
    extent = op.end
    parameter = isinstance(extent, BlockArgument) and isinstance(extent.type, tile.ConstexprType)
    return extent if parameter or isinstance(extent.owner, arith.ConstantOp) else None


def start_form(value: object) -> BlockStart | None:
    """The form of ``value`` if it is an index block this module carries:
    ``tl.arange(0, B)`` plus scalars in any order and grouping
    (``pid * B + tl.arange(0, B)``, ``tl.arange(0, B) + pid * B``,
    ``pid * B + tl.arange(0, B) + 1``)."""
    if not isinstance(value, SSAValue):
        return None
    scalars: list[SSAValue] = []
    extents: list[SSAValue] = []
    wide = False
    pending = [value]
    while pending:
        term = pending.pop(0)
        if tile.rank_of(term.type) == 0:
            scalars.append(term)  # a widened scalar keeps its cast: the start is computed from it
            continue
        wide = wide or _is_widening(term)
        term = _widened(term)
        if (extent := _zero_arange(term)) is not None:
            extents.append(extent)
        elif isinstance(term.owner, tile.AddOp):
            pending += [term.owner.lhs, term.owner.rhs]
        else:
            return None
    if len(extents) != 1:
        return None
    return BlockStart(tuple(scalars), extents[0], wide)


def same_form(a: BlockStart | None, b: BlockStart | None) -> bool:
    return a is not None and b is not None and same_value(a.extent, b.extent)


def start_of(imp: ImporterContext, form: BlockStart, at: ast.AST) -> SSAValue:
    """The scalar start (a 0 constant made here when the block starts at 0,
    the sum made here when it has several terms)."""
    if not form.starts:
        return imp.constant(0, at)
    start = form.starts[0]
    for term in form.starts[1:]:
        start = imp.exprs.binary(ast.Add(), start, term, at)
    if form.wide and not _is_widening(start):
        # the block was int64 (`tl.arange(0, B).to(tl.int64)`): an int64 start keeps it so
        cast = tile.CastOp(operands=[start], properties={"dtype": i64}, result_types=[T.with_element(start.type, i64)])
        start = imp.insert(cast).results[0]
    return start


def rebuild(imp: ImporterContext, start: SSAValue, extent: SSAValue, at: ast.AST) -> SSAValue:
    """``start + tl.arange(0, extent)`` at the current insertion point."""
    if isinstance(extent.owner, arith.ConstantOp):  # a literal made inside the branch or loop: make it again here
        extent = imp.insert(arith.ConstantOp(extent.owner.value)).results[0]
    return index_block(imp, start, extent, at)
