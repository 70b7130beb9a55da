"""Block pointers (``tl.make_block_ptr``, ``tl.advance`` and the loads and
stores through them), lowered to pointer arithmetic as the kernel is imported.

A block pointer is a compile-time record, never an SSA value: its base,
shape, strides and block shape, and one scalar offset per dim. ``tl.advance``
adds to the offsets; a loop that advances a block pointer carries its offsets
(one ``scf.for`` / ``scf.while`` iter arg per dim). A load or store through it
becomes the address Triton itself computes for it::

    base + (off_0 + tl.arange(0, B_0))[:, None] * stride_0
         + (off_1 + tl.arange(0, B_1))[None, :] * stride_1

with ``mask`` ``0 <= off_d + i < shape_d`` on the dims of ``boundary_check``
and ``other`` from ``padding_option``. Why lower rather than keep them: the
footprint analysis then sees the index form it bounds exactly, and the
emitted kernel runs on every supported Triton, including those that removed
block pointers (3.9), so the fused kernel can be checked on simulated ranks.
``order`` only describes the memory layout (a hint for Triton's codegen) and
does not change which elements a block covers, so it is checked and dropped.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, SSAValue

from syncopate.dialects import tile
from syncopate.ir.frontend import type_rules as T
from syncopate.ir.frontend.errors import FrontendError
from syncopate.ir.frontend.index_blocks import bound_names, index_block, literal_int, parse_at, same_value

if TYPE_CHECKING:
    from syncopate.ir.frontend.importer_context import ImporterContext

MAKE_ARGS = ("base", "shape", "strides", "offsets", "block_shape", "order")
PADDING = {"": None, "zero": 0.0, "nan": float("nan")}


@dataclass(frozen=True)
class BlockPointer:
    """``tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)``
    after any ``tl.advance``: ``offsets`` are the current ones."""

    base: SSAValue
    shape: tuple[SSAValue, ...]
    strides: tuple[SSAValue, ...]
    offsets: tuple[SSAValue, ...]
    block: tuple[SSAValue, ...]

    @property
    def rank(self) -> int:
        return len(self.offsets)

    def same_block(self, other: BlockPointer) -> bool:
        """Same tensor and block shape (offsets may differ): what a loop may
        carry from one iteration to the next."""
        return all(
            len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
            for a, b in ((self.shape, other.shape), (self.strides, other.strides), (self.block, other.block))
        ) and same_value(self.base, other.base)


def _literal_list(imp: ImporterContext, call: ast.Call, node: ast.expr | None, what: str) -> list[ast.expr]:
    if not isinstance(node, (ast.Tuple, ast.List)):
        raise imp.unsupported(node if node is not None else call, f"block pointer `{what}` (expected a tuple literal)")
    return list(node.elts)


def make(imp: ImporterContext, call: ast.Call) -> BlockPointer:
    """``tl.make_block_ptr(...)``, positional or keyword arguments."""
    nodes = {name: imp.calls.keyword(call, name, index) for index, name in enumerate(MAKE_ARGS)}
    missing = [name for name, node in nodes.items() if node is None]
    if missing:
        raise imp.error(call, f"tl.make_block_ptr needs {', '.join(missing)}")
    extra = {kw.arg for kw in call.keywords} - set(MAKE_ARGS)
    if extra or len(call.args) > len(MAKE_ARGS):
        raise imp.unsupported(call, "tl.make_block_ptr arguments")
    base = imp.ssa(imp.exprs.expr(nodes["base"]), nodes["base"])  # type: ignore[arg-type]
    lists = {}
    for name in ("shape", "strides", "offsets", "block_shape"):
        lists[name] = tuple(imp.ssa(imp.exprs.expr(e), e) for e in _literal_list(imp, call, nodes[name], name))
    order = [imp.static_literal(e) for e in _literal_list(imp, call, nodes["order"], "order")]
    rank = len(lists["offsets"])
    if any(len(values) != rank for values in lists.values()) or len(order) != rank:
        sizes = ", ".join(f"{name} {len(lists[name])}" for name in lists)
        raise imp.error(call, f"tl.make_block_ptr: shape, strides, offsets, block_shape and order need one entry "
                              f"per dim ({sizes}, order {len(order)})")
    if sorted(o.value.data if isinstance(o, IntegerAttr) else -1 for o in order) != list(range(rank)):
        raise imp.error(call, f"tl.make_block_ptr: order must be a permutation of the dims 0..{rank - 1} "
                              f"written as integer literals, got `{ast.unparse(nodes['order'])}`")  # type: ignore[arg-type]
    return BlockPointer(base, lists["shape"], lists["strides"], lists["offsets"], lists["block_shape"])


def advance(imp: ImporterContext, call: ast.Call) -> BlockPointer:
    """``tl.advance(block_ptr, (d_0, d_1, ...))``: the offsets moved by ``d``."""
    base_node, offsets_node = imp.calls.keyword(call, "base", 0), imp.calls.keyword(call, "offsets", 1)
    if base_node is None or offsets_node is None:
        raise imp.error(call, "tl.advance needs a block pointer and offsets")
    pointer = imp.exprs.expr(base_node)
    if not isinstance(pointer, BlockPointer):
        raise imp.error(call, f"tl.advance: `{ast.unparse(base_node)}` is not a block pointer "
                              "(made by tl.make_block_ptr)")
    deltas = _literal_list(imp, call, offsets_node, "offsets of tl.advance")
    if len(deltas) != pointer.rank:
        raise imp.error(call, f"tl.advance: {len(deltas)} offsets for a block pointer of {pointer.rank} dims")
    offsets = []
    for offset, delta in zip(pointer.offsets, deltas):
        if isinstance(delta, ast.Constant) and delta.value == 0:
            offsets.append(offset)  # `(0, BLOCK_K)`: this dim does not move
        else:
            offsets.append(imp.exprs.binary(ast.Add(), offset, imp.exprs.expr(delta), delta))
    return replace(pointer, offsets=tuple(imp.ssa(o, call) for o in offsets))


def _address(imp: ImporterContext, pointer: BlockPointer, checked: list[int], at: ast.Call
             ) -> tuple[SSAValue, SSAValue | None]:
    """The pointer block and the boundary mask (None when nothing is checked)."""
    values: dict[str, SSAValue] = {"__bp_base": pointer.base}
    for d in range(pointer.rank):
        values.update({f"__bp_index{d}": index_block(imp, pointer.offsets[d], pointer.block[d], at),
                       f"__bp_stride{d}": pointer.strides[d], f"__bp_shape{d}": pointer.shape[d]})
    terms, masks = ["__bp_base"], []
    with bound_names(imp, values):
        for d in range(pointer.rank):
            axes = ", ".join(":" if axis == d else "None" for axis in range(pointer.rank))
            spread = f"__bp_index{d}[{axes}]" if pointer.rank > 1 else f"__bp_index{d}"
            unit = literal_int(pointer.strides[d]) == 1
            terms.append(spread if unit else f"{spread} * __bp_stride{d}")  # the contiguous dim, as users write it
            if d in checked:
                inside = f"((__bp_index{d} >= 0) & (__bp_index{d} < __bp_shape{d}))"
                masks.append(f"{inside}[{axes}]" if pointer.rank > 1 else inside)
        address = imp.ssa(imp.exprs.expr(parse_at(" + ".join(terms), at)), at)
        mask = imp.ssa(imp.exprs.expr(parse_at(" & ".join(masks), at)), at) if masks else None
    return address, mask


def _checked_dims(imp: ImporterContext, call: ast.Call, pointer: BlockPointer) -> list[int]:
    node = imp.calls.keyword(call, "boundary_check")
    if node is None:
        return []
    dims = [e.value for e in _literal_list(imp, call, node, "boundary_check")
            if isinstance(e, ast.Constant) and isinstance(e.value, int)]
    if len(dims) != len(node.elts) or any(not 0 <= d < pointer.rank for d in dims):  # type: ignore[attr-defined]
        raise imp.error(call, f"boundary_check must list dims of the block pointer (0..{pointer.rank - 1}) "
                              f"as integer literals, got `{ast.unparse(node)}`")
    return dims


def _options(imp: ImporterContext, call: ast.Call, taken: set[str]) -> dict[str, Attribute]:
    """The literal options passed on unchanged (``cache_modifier``, ``eviction_policy``, ...)."""
    for name in ("mask", "other"):
        if imp.calls.keyword(call, name) is not None:
            raise imp.error(call, f"`{name}=` cannot be used with a block pointer; use boundary_check"
                                  f"{' and padding_option' if name == 'other' else ''}")
    dynamic, static = imp.calls.split_kwargs(call, taken)
    if dynamic:
        raise imp.unsupported(call, "load/store options through a block pointer (options must be literals)")
    return {"static_kwargs": DictionaryAttr(static)} if static else {}


def load(imp: ImporterContext, pointer: BlockPointer, call: ast.Call) -> SSAValue:
    """``tl.load(block_ptr, boundary_check=..., padding_option=...)``."""
    if len(call.args) > 1:
        raise imp.error(call, "tl.load through a block pointer takes its options as keywords "
                              "(boundary_check=, padding_option=)")
    padding_node = imp.calls.keyword(call, "padding_option")
    padding = imp.static_literal(padding_node) if padding_node is not None else StringAttr("")
    if not isinstance(padding, StringAttr) or padding.data not in PADDING:
        raise imp.error(call, f"padding_option must be one of {sorted(k for k in PADDING if k)} (a string literal)")
    address, mask = _address(imp, pointer, _checked_dims(imp, call, pointer), call)
    fill = PADDING[padding.data]
    other = [imp.constant(fill, call)] if fill is not None and mask is not None else []
    options = _options(imp, call, {"pointer", "boundary_check", "padding_option"})
    result = T.with_element(address.type, T.ANY) if tile.rank_of(address.type) else T.ANY
    op = tile.LoadOp(operands=[address, [mask] if mask is not None else [], other], properties=options,
                     result_types=[result])
    return imp.insert(op).results[0]


def store(imp: ImporterContext, pointer: BlockPointer, call: ast.Call) -> None:
    """``tl.store(block_ptr, value, boundary_check=...)``."""
    value_node = imp.calls.keyword(call, "value", 1)
    if value_node is None or len(call.args) > 2:
        raise imp.error(call, "tl.store through a block pointer needs a value (options as keywords)")
    value = imp.ssa(imp.exprs.expr(value_node), value_node)
    address, mask = _address(imp, pointer, _checked_dims(imp, call, pointer), call)
    options = _options(imp, call, {"pointer", "value", "boundary_check"})
    imp.insert(tile.StoreOp(operands=[address, value, [mask] if mask is not None else []], properties=options))


def reject_in_value(imp: ImporterContext, value: object, node: ast.AST) -> None:
    """A block pointer used where a tensor is expected (arithmetic, a call)."""
    if isinstance(value, BlockPointer):
        raise FrontendError(imp.m.filename, getattr(node, "lineno", 0),
                            f"a block pointer cannot be used as a value here: `{ast.unparse(node)}` "
                            "(load or store through it, or move it with tl.advance)")
