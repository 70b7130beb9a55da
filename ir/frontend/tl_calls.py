"""The ``triton.language`` functions that import as an op of their own
(``tl.program_id``, ``tl.arange``, ``tl.load``, ``tl.store``, ``tl.dot``,
``tl.where``, block pointers, tensor descriptors, ...), dispatched through
:attr:`TritonCallImporter.TL_HANDLERS`. One job of
:class:`~syncopate.ir.frontend.triton_import.FunctionImporter` (see
:mod:`~syncopate.ir.frontend.importer_context`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from xdsl.dialects.builtin import (
    DictionaryAttr,
    IntegerAttr,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, SSAValue

from syncopate.dialects import tile
from syncopate.ir.frontend import block_pointers
from syncopate.ir.frontend import type_rules as T
from syncopate.ir.frontend.block_pointers import BlockPointer
from syncopate.ir.frontend.index_blocks import literal_int
from syncopate.ir.frontend.importer_context import TL, Value, is_none_literal, ImporterContext

def _static_kwargs(values: dict[str, Attribute]) -> dict[str, Attribute]:
    return {"static_kwargs": DictionaryAttr(values)} if values else {}


class TritonCallImporter:
    """Imports the ``tl.*`` functions that have an op of their own (see the module doc)."""

    def __init__(self, ctx: ImporterContext) -> None:
        self.ctx = ctx

    def tl_program_id(self, node: ast.Call) -> SSAValue:
        return self.axis_op(tile.ProgramIdOp, node)

    def tl_num_programs(self, node: ast.Call) -> SSAValue:
        return self.axis_op(tile.NumProgramsOp, node)

    def axis_op(self, op_class: type[tile.ProgramIdOp] | type[tile.NumProgramsOp], node: ast.Call) -> SSAValue:
        axis_node = self.ctx.calls.keyword(node, "axis", 0)
        axis = self.ctx.static_literal(axis_node) if axis_node is not None else None
        if isinstance(axis_node, ast.Name) and axis_node.id in self.ctx.literal_axes:
            axis = IntegerAttr(self.ctx.literal_axes[axis_node.id], i64)
        if not isinstance(axis, IntegerAttr) and self.ctx.helper and isinstance(axis_node, ast.Name):
            param = self.ctx.env.get(axis_node.id)
            if isinstance(param, BlockArgument) and isinstance(param.type, tile.ConstexprType):
                # a helper built on its own: every call the kernel makes is inlined with its axis
                # (`inline_call`), so this body is only emitted, as written
                callee = "tl.program_id" if op_class is tile.ProgramIdOp else "tl.num_programs"
                return self.ctx.calls.generic_call(callee, node, [param], {}, i32)
        if not isinstance(axis, IntegerAttr):
            raise self.ctx.unsupported(node, "program axis (expected 0, 1 or 2)")
        return self.ctx.insert(op_class(axis.value.data)).results[0]

    def literal_dim(self, value: SSAValue) -> int:
        literal = literal_int(value)
        return tile.DYNAMIC if literal is None else literal

    def tl_arange(self, node: ast.Call) -> SSAValue:
        start, end = self.ctx.calls.positional(node, 2)
        size = tile.DYNAMIC
        if self.literal_dim(start) != tile.DYNAMIC and self.literal_dim(end) != tile.DYNAMIC:
            size = self.literal_dim(end) - self.literal_dim(start)
        return self.ctx.insert(tile.ArangeOp(start, end, tile.BlockType([size], i32))).results[0]

    def shape_operands(self, node: ast.expr | None, call: ast.Call) -> list[SSAValue]:
        if isinstance(node, (ast.Tuple, ast.List)):
            return [self.ctx.ssa(self.ctx.exprs.expr(e), e) for e in node.elts]
        if node is not None:
            return [self.ctx.ssa(self.ctx.exprs.expr(node), node)]
        raise self.ctx.error(call, f"`{ast.unparse(call.func)}` needs a shape")

    def tl_zeros(self, node: ast.Call) -> SSAValue:
        shape = self.shape_operands(self.ctx.calls.keyword(node, "shape", 0), node)
        dtype_node = self.ctx.calls.keyword(node, "dtype", 1)
        dtype = self.ctx.static_literal(dtype_node) if dtype_node is not None else None
        if dtype is None and self.computed_dtype(dtype_node):
            return self.dtype_call("tl.zeros", node, shape, [], dtype_node)  # type: ignore[arg-type]
        if dtype is None or isinstance(dtype, (StringAttr, IntegerAttr, NoneAttr)):
            raise self.ctx.unsupported(node, "tl.zeros dtype (expected tl.<dtype>)")
        result = tile.BlockType([self.literal_dim(s) for s in shape], dtype)
        op = tile.ZerosOp(operands=[shape], properties={"dtype": dtype}, result_types=[result])
        return self.ctx.insert(op).results[0]

    def computed_dtype(self, node: ast.expr | None) -> bool:
        """``node`` reads a dtype from a value (``X.dtype.element_ty``,
        ``x.dtype``, ``Y.type.element_ty``): known to Triton when it
        compiles, not to this import."""
        return isinstance(node, ast.Attribute) and node.attr in ("dtype", "element_ty")

    def dtype_call(self, callee: str, node: ast.Call, shape: list[SSAValue], args: list[SSAValue],
                   dtype_node: ast.expr) -> SSAValue:
        """``tl.zeros(shape, dtype=X.dtype.element_ty)`` / ``tl.full(shape, v,
        dtype=...)`` with a dtype computed in the kernel: a block of the
        shape whose element type this import leaves open; emitted as written
        (data only, never an index the analysis bounds)."""
        dtype = self.ctx.ssa(self.ctx.exprs.expr(dtype_node), dtype_node)
        dims = [self.literal_dim(s) for s in shape]
        packed = self.ctx.insert(tile.TupleOp(shape, brackets=False)).results[0]
        result = tile.BlockType(dims, T.ANY) if dims else T.ANY
        return self.ctx.calls.generic_call(callee, node, [packed, *args], {"dtype": dtype}, result, {})  # type: ignore[return-value]

    def tl_full(self, node: ast.Call) -> SSAValue:
        shape = self.shape_operands(self.ctx.calls.keyword(node, "shape", 0), node)
        value_node = self.ctx.calls.keyword(node, "value", 1)
        dtype_node = self.ctx.calls.keyword(node, "dtype", 2)
        dtype = self.ctx.static_literal(dtype_node) if dtype_node is not None else None
        if value_node is not None and dtype is None and self.computed_dtype(dtype_node):
            value = self.ctx.ssa(self.ctx.exprs.expr(value_node), value_node)
            return self.dtype_call("tl.full", node, shape, [value], dtype_node)  # type: ignore[arg-type]
        if value_node is None or dtype is None or isinstance(dtype, (StringAttr, IntegerAttr, NoneAttr)):
            raise self.ctx.unsupported(node, "tl.full arguments (shape, value, dtype=tl.<dtype>)")
        value = self.ctx.ssa(self.ctx.exprs.expr(value_node), value_node)
        result = tile.BlockType([self.literal_dim(s) for s in shape], dtype) if shape else dtype  # () is 0-d
        op = tile.SplatOp(operands=[value, shape], properties={"dtype": dtype}, result_types=[result])
        return self.ctx.insert(op).results[0]

    def tl_broadcast_to(self, node: ast.Call) -> SSAValue:
        src = self.ctx.ssa(self.ctx.exprs.expr(node.args[0]), node.args[0]) if node.args else None
        if src is None:
            raise self.ctx.error(node, "tl.broadcast_to needs a value")
        shape_nodes = node.args[1:] if len(node.args) > 2 else [self.ctx.calls.keyword(node, "shape", 1)]
        shape: list[SSAValue] = []
        for shape_node in shape_nodes:
            shape += self.shape_operands(shape_node, node)
        result = T.make_type(tuple(self.literal_dim(s) for s in shape), T.element_of(src.type))
        return self.ctx.insert(tile.BroadcastOp(operands=[src, shape], result_types=[result])).results[0]

    def tl_expand_dims(self, node: ast.Call) -> SSAValue:
        src = self.ctx.calls.positional(node, 1, at_least=True)[0]
        axis = self.ctx.static_literal(self.ctx.calls.keyword(node, "axis", 1) or node)
        if not isinstance(axis, IntegerAttr):
            raise self.ctx.unsupported(node, "expand_dims axis (expected an integer literal)")
        shape = list(T.shape_of(src.type))
        position = axis.value.data if axis.value.data >= 0 else len(shape) + 1 + axis.value.data
        shape.insert(position, 1)
        result = T.make_type(tuple(shape), T.element_of(src.type)) if not isinstance(src.type, tile.AnyValueType) else T.ANY
        return self.ctx.insert(tile.ExpandDimsOp(src, axis.value.data, result)).results[0]

    def tl_load(self, node: ast.Call) -> SSAValue:
        ptr_node = self.ctx.calls.keyword(node, "pointer", 0)
        if ptr_node is None:
            raise self.ctx.error(node, "tl.load needs a pointer")
        pointer = self.ctx.exprs.expr(ptr_node)
        if isinstance(pointer, BlockPointer):
            return block_pointers.load(self.ctx, pointer, node)
        ptr = self.pointer_operand(self.ctx.ssa(pointer, ptr_node), ptr_node, "tl.load")
        mask_node, other_node = self.ctx.calls.keyword(node, "mask", 1), self.ctx.calls.keyword(node, "other", 2)
        mask = [self.ctx.ssa(self.ctx.exprs.expr(mask_node), mask_node)] \
            if mask_node is not None and not is_none_literal(mask_node) else []
        other = [self.ctx.ssa(self.ctx.exprs.expr(other_node), other_node)] \
            if other_node is not None and not is_none_literal(other_node) else []
        kwargs, static = self.ctx.calls.split_kwargs(node, {"pointer", "mask", "other"})
        if kwargs or len(node.args) > 3:
            raise self.ctx.unsupported(node, "tl.load arguments (options must be literals)")
        result = T.with_element(ptr.type, T.ANY) if tile.rank_of(ptr.type) else T.ANY
        op = tile.LoadOp(
            operands=[ptr, mask, other], properties=_static_kwargs(static), result_types=[result]
        )
        return self.ctx.insert(op).results[0]

    def tl_store(self, node: ast.Call) -> list[Value]:
        ptr_node, value_node = self.ctx.calls.keyword(node, "pointer", 0), self.ctx.calls.keyword(node, "value", 1)
        if ptr_node is None or value_node is None:
            raise self.ctx.error(node, "tl.store needs a pointer and a value")
        pointer = self.ctx.exprs.expr(ptr_node)
        if isinstance(pointer, BlockPointer):
            block_pointers.store(self.ctx, pointer, node)
            return []
        ptr = self.pointer_operand(self.ctx.ssa(pointer, ptr_node), ptr_node, "tl.store")
        value = self.ctx.ssa(self.ctx.exprs.expr(value_node), value_node)
        mask_node = self.ctx.calls.keyword(node, "mask", 2)
        mask = [self.ctx.ssa(self.ctx.exprs.expr(mask_node), mask_node)] if mask_node is not None and not is_none_literal(mask_node) else []
        kwargs, static = self.ctx.calls.split_kwargs(node, {"pointer", "value", "mask"})
        if kwargs or len(node.args) > 3:
            raise self.ctx.unsupported(node, "tl.store arguments (options must be literals)")
        self.ctx.insert(tile.StoreOp(operands=[ptr, value, mask], properties=_static_kwargs(static)))
        return []

    def pointer_operand(self, ptr: SSAValue, node: ast.expr, what: str) -> SSAValue:
        """``ptr``, refused where it is no pointer: the parameter it comes
        from was not recognised as one (frontend/pointer_scan.py)."""
        if tile.is_pointer_like(ptr.type) or isinstance(ptr.type, tile.AnyValueType):
            return ptr
        raise self.ctx.error(node, f"the pointer operand of {what} is not a pointer (`{ast.unparse(node)}` has type "
                               f"{ptr.type}): write the pointer parameter first, `x_ptr + offsets`, as Triton code does")

    def tl_dot(self, node: ast.Call) -> SSAValue:
        keyword = self.ctx.calls.keyword
        a_node, b_node, acc_node = keyword(node, "a", 0), keyword(node, "b", 1), keyword(node, "acc", 2)
        if a_node is None or b_node is None:
            raise self.ctx.error(node, "tl.dot needs two operands")
        a, b = self.ctx.ssa(self.ctx.exprs.expr(a_node), a_node), self.ctx.ssa(self.ctx.exprs.expr(b_node), b_node)
        acc = [self.ctx.ssa(self.ctx.exprs.expr(acc_node), acc_node)] if acc_node is not None and not is_none_literal(acc_node) else []
        kwargs, static = self.ctx.calls.split_kwargs(node, {"a", "b", "acc"})
        if kwargs or len(node.args) > 3:
            raise self.ctx.unsupported(node, "tl.dot arguments (options must be literals)")
        a_shape, b_shape = T.shape_of(a.type), T.shape_of(b.type)
        if acc:
            result: Attribute = acc[0].type
        elif len(a_shape) == 2 and len(b_shape) == 2 and not isinstance(static.get("out_dtype"), SymbolRefAttr):
            element = static.get("out_dtype", f32)
            result = tile.BlockType([a_shape[0], b_shape[1]], element)
        else:
            result = T.ANY
        op = tile.DotOp(operands=[a, b, acc], properties=_static_kwargs(static), result_types=[result])
        return self.ctx.insert(op).results[0]

    def tl_where(self, node: ast.Call) -> SSAValue:
        c, x, y = self.ctx.calls.positional(node, 3)
        result = T.broadcast(c.type, T.broadcast(x.type, y.type))
        if not isinstance(result, tile.AnyValueType):
            result = T.with_element(result, T.promote_elements(T.element_of(x.type), T.element_of(y.type)))
        return self.ctx.insert(tile.WhereOp(operands=[c, x, y], result_types=[result])).results[0]

    def tl_trans(self, node: ast.Call) -> SSAValue:
        if len(node.args) != 1 or node.keywords:
            return self.ctx.calls.builtin_call(f"{TL}.trans", node, False)  # type: ignore[return-value]
        src = self.ctx.calls.positional(node, 1)[0]
        return self.ctx.insert(tile.TransOp(operands=[src], result_types=[self.ctx.exprs.transposed(src.type)])).results[0]

    def tl_split(self, node: ast.Call) -> list[Value]:
        """``a, b = tl.split(x)``: two values, each ``x`` without its last dim (of 2)."""
        if len(node.args) != 1 or node.keywords:
            raise self.ctx.unsupported(node, "tl.split call (one block, no keywords)")
        src = self.ctx.calls.positional(node, 1)[0]
        shape = T.shape_of(src.type)
        half = T.make_type(shape[:-1], T.element_of(src.type)) if len(shape) > 1 else T.ANY
        return list(self.ctx.insert(tile.SplitOp(operands=[src], result_types=[half, half])).results)

    def tl_atomic_cas(self, node: ast.Call) -> SSAValue:
        ptr_node, cmp_node, val_node = (self.ctx.calls.keyword(node, k, i) for i, k in enumerate(("pointer", "cmp", "val")))
        if ptr_node is None or cmp_node is None or val_node is None:
            raise self.ctx.error(node, "tl.atomic_cas needs pointer, cmp and val")
        operands = [self.ctx.ssa(self.ctx.exprs.expr(n), n) for n in (ptr_node, cmp_node, val_node)]
        props = self.ctx.calls.sem_scope(node, 3)
        result = T.with_element(operands[0].type, T.ANY) if tile.rank_of(operands[0].type) else T.ANY
        op = tile.AtomicCASOp(operands=operands, properties=props, result_types=[result])
        return self.ctx.insert(op).results[0]

    def tl_make_tensor_descriptor(self, node: ast.Call) -> SSAValue:
        base_node = self.ctx.calls.keyword(node, "base", 0)
        if base_node is None:
            raise self.ctx.error(node, "tl.make_tensor_descriptor needs a base pointer")
        base = self.ctx.ssa(self.ctx.exprs.expr(base_node), base_node)
        lists = []
        for index, key in enumerate(("shape", "strides", "block_shape")):
            list_node = self.ctx.calls.keyword(node, key, index + 1)
            if not isinstance(list_node, (ast.List, ast.Tuple)):
                raise self.ctx.unsupported(node, f"tensor descriptor `{key}` (expected a list literal)")
            lists.append([self.ctx.ssa(self.ctx.exprs.expr(e), e) for e in list_node.elts])
        extra = {kw.arg for kw in node.keywords} - {"base", "shape", "strides", "block_shape"}
        if extra:
            raise self.ctx.unsupported(node, f"tensor descriptor option(s) {sorted(e or '' for e in extra)}")
        op = tile.MakeTensorDescriptorOp(operands=[base, *lists], result_types=[tile.DescriptorType(len(lists[0]))])
        return self.ctx.insert(op).results[0]

    def tl_make_block_ptr(self, node: ast.Call) -> BlockPointer:
        return block_pointers.make(self.ctx, node)

    def tl_advance(self, node: ast.Call) -> BlockPointer:
        return block_pointers.advance(self.ctx, node)

    TL_HANDLERS: dict[str, Callable[[TritonCallImporter, ast.Call], Value | list[Value]]] = {
        "make_block_ptr": tl_make_block_ptr,
        "advance": tl_advance,
        "program_id": tl_program_id,
        "num_programs": tl_num_programs,
        "arange": tl_arange,
        "zeros": tl_zeros,
        "full": tl_full,
        "broadcast_to": tl_broadcast_to,
        "expand_dims": tl_expand_dims,
        "load": tl_load,
        "store": tl_store,
        "dot": tl_dot,
        "where": tl_where,
        "trans": tl_trans,
        "split": tl_split,
        "atomic_cas": tl_atomic_cas,
        "make_tensor_descriptor": tl_make_tensor_descriptor,
    }
