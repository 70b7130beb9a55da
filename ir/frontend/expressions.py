"""Expressions of a jit function: names, constants, operators,
comparisons, ``is`` tests, conditional expressions, subscripts and
attributes (a call goes to :mod:`~syncopate.ir.frontend.calls`). One job of
:class:`~syncopate.ir.frontend.triton_import.FunctionImporter` (see
:mod:`~syncopate.ir.frontend.importer_context`).
"""

from __future__ import annotations

import ast

from xdsl.dialects import scf
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    NoneAttr,
    StringAttr,
    f32,
    i1,
)
from xdsl.ir import Attribute, Block, OpResult, Region, SSAValue

from syncopate.dialects import tile
from syncopate.ir.frontend import type_rules as T
from syncopate.ir.frontend.importer_context import PyRef, Value, is_none_literal, ImporterContext

BINARY_OPS: dict[type[ast.operator], type[tile.BinaryOp]] = {
    ast.Add: tile.AddOp, ast.Sub: tile.SubOp, ast.Mult: tile.MulOp, ast.Div: tile.TrueDivOp,
    ast.FloorDiv: tile.FloorDivOp, ast.Mod: tile.ModOp, ast.BitAnd: tile.AndOp, ast.BitOr: tile.OrOp,
    ast.BitXor: tile.XorOp, ast.LShift: tile.ShlOp, ast.RShift: tile.ShrOp,
}  # fmt: skip


COMPARE_OPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}


class ExpressionImporter:
    """Imports expressions (see the module doc)."""

    def __init__(self, ctx: ImporterContext) -> None:
        self.ctx = ctx

    def expr(self, node: ast.expr, statement: bool = False) -> Value | list[Value]:
        if isinstance(node, ast.Name):
            return self.ctx.lookup(node.id, node)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bool, int, float)):
                return self.ctx.constant(node.value, node)
            if isinstance(node.value, str) or node.value is None:
                value = StringAttr(node.value) if node.value is not None else NoneAttr()
                return self.ctx.insert(tile.LiteralOp(value)).results[0]
            raise self.ctx.unsupported(node, "constant")
        if isinstance(node, ast.BinOp):
            return self.binary(node.op, self.expr(node.left), self.expr(node.right), node)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, ast.Compare):
            if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
                return self.identity_test(node)
            return self.comparison(node)
        if isinstance(node, ast.BoolOp):
            op_class = tile.LogicalAndOp if isinstance(node.op, ast.And) else tile.LogicalOrOp
            result = self.ctx.ssa(self.expr(node.values[0]), node)
            for operand in node.values[1:]:
                rhs = self.ctx.ssa(self.expr(operand), operand)
                result = self.ctx.insert(op_class(result, rhs, T.broadcast(result.type, rhs.type, i1))).results[0]
            return result
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Call):
            return self.ctx.calls.call(node, statement)
        if isinstance(node, ast.Tuple):
            return [self.expr(e) for e in node.elts]  # type: ignore[misc]
        if isinstance(node, ast.IfExp):
            return self.if_expression(node)
        raise self.ctx.unsupported(node, f"expression ({type(node).__name__})")

    def comparison(self, node: ast.Compare) -> SSAValue:
        """``a < b``; a chain ``a <= b < c`` is ``(a <= b) & (b < c)`` with
        ``b`` evaluated once, as Python and Triton 3.9 read it. Written out
        with ``&``: Triton 3.6's code generator refuses chains, and ``&`` of
        two comparisons is the same on scalars and on blocks."""
        result: SSAValue | None = None
        lhs = self.ctx.ssa(self.expr(node.left), node)
        for operator, operand in zip(node.ops, node.comparators):
            op = COMPARE_OPS.get(type(operator))
            if op is None:
                what = "identity test in a chained comparison" if isinstance(operator, (ast.Is, ast.IsNot)) else \
                    "comparison operator"
                raise self.ctx.unsupported(node, what)
            rhs = self.ctx.ssa(self.expr(operand), operand)
            test = self.ctx.insert(tile.CmpOp(op, lhs, rhs, T.broadcast(lhs.type, rhs.type, i1))).results[0]
            result = test if result is None else self.ctx.insert(
                tile.AndOp(result, test, T.broadcast(result.type, test.type, i1))).results[0]
            lhs = rhs
        assert result is not None
        return result

    def identity_test(self, node: ast.Compare) -> SSAValue:
        """``p is None`` / ``p is not None``: Triton decides it when it
        compiles (a parameter passed None is specialized to None), so it is
        kept as a ``tile.cmp "is"/"isnot"`` with None on the right and
        emitted as written; ``None is p`` is the same test."""
        left, right = node.left, node.comparators[0]
        if is_none_literal(left) and not is_none_literal(right):
            left, right = right, left
        dtype = self.ctx.static_literal(right) if isinstance(right, ast.Attribute) else None
        if dtype is not None and not isinstance(dtype, (StringAttr, IntegerAttr, FloatAttr, NoneAttr)):
            # `x.dtype is tl.bfloat16` (Liger, Unsloth): a dtype, decided by Triton when it
            # compiles, like `==`; kept as written
            value = self.ctx.ssa(self.expr(left), left)
            literal = self.ctx.insert(tile.LiteralOp(dtype)).results[0]
            predicate = "is" if isinstance(node.ops[0], ast.Is) else "isnot"
            return self.ctx.insert(tile.CmpOp(predicate, value, literal, i1)).results[0]
        if not is_none_literal(right) or is_none_literal(left):
            raise self.ctx.error(
                node, f"unsupported identity test `{ast.unparse(node)}`: only `x is None`, `x is not None` and "
                "`x.dtype is tl.<dtype>` are supported (Triton decides them when it compiles; compare values with `==`)"
            )
        value = self.ctx.ssa(self.expr(left), left)
        none = self.ctx.insert(tile.LiteralOp(NoneAttr())).results[0]
        predicate = "is" if isinstance(node.ops[0], ast.Is) else "isnot"
        return self.ctx.insert(tile.CmpOp(predicate, value, none, i1)).results[0]

    def if_expression(self, node: ast.IfExp) -> SSAValue:
        """``a if c else b``: an ``scf.if`` with one result (each branch
        evaluates only its own operand, as in Python)."""
        condition = self.ctx.as_condition(self.ctx.ssa(self.expr(node.test), node.test))
        blocks, values = (Block(), Block()), []
        for block, branch in zip(blocks, (node.body, node.orelse)):
            with self.ctx.in_block(block):
                values.append(self.ctx.ssa(self.expr(branch), branch))
        result_type = T.join(values[0].type, values[1].type)
        for block, value in zip(blocks, values):
            with self.ctx.in_block(block):
                if value.type != result_type:
                    value = self.ctx.insert(tile.RetypeOp(value, result_type)).results[0]
                self.ctx.insert(scf.YieldOp(value))
        op = self.ctx.insert(scf.IfOp(condition, [result_type], Region(blocks[0]), Region(blocks[1])))
        return op.results[0]

    def binary(self, op: ast.operator, lhs_v: Value | list[Value], rhs_v: Value | list[Value], node: ast.AST) -> SSAValue:
        op_class = BINARY_OPS.get(type(op))
        if op_class is None:
            raise self.ctx.unsupported(node, "binary operator")
        lhs, rhs = self.ctx.ssa(lhs_v, node), self.ctx.ssa(rhs_v, node)  # type: ignore[arg-type]
        if op_class is tile.AddOp and tile.is_pointer_like(lhs.type):
            return self.ctx.insert(tile.AddPtrOp(lhs, rhs, T.broadcast(lhs.type, rhs.type))).results[0]
        if op_class is tile.AddOp and tile.is_pointer_like(rhs.type):  # `row + out_ptr`: the same address
            return self.ctx.insert(tile.AddPtrOp(rhs, lhs, T.broadcast(rhs.type, lhs.type))).results[0]
        hoisted = self.expanded_offset(op_class, lhs, rhs, node)
        if hoisted is not None:
            return hoisted
        result_type = T.broadcast(lhs.type, rhs.type)
        if op_class is tile.TrueDivOp and not isinstance(result_type, tile.AnyValueType):
            element = T.element_of(result_type)
            if not isinstance(element, (tile.ConstexprType,)) and T.dtype_name(element) in (
                "int1", "int8", "int16", "int32", "int64"
            ):  # fmt: skip
                result_type = T.with_element(result_type, f32)
        return self.ctx.insert(op_class(lhs, rhs, result_type)).results[0]

    def expanded_offset(self, op_class: type, lhs: SSAValue, rhs: SSAValue, node: ast.AST) -> SSAValue | None:
        """``start + block[:, None]`` as ``(start + block)[:, None]`` (FlagGems'
        ``pid * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]``): the same values,
        in the form the analysis reads as one index expanded; None where the
        operands are not a scalar and an expanded 1-D block."""
        if op_class not in (tile.AddOp, tile.SubOp):
            return None
        for scalar, expanded, first in ((lhs, rhs, True), (rhs, lhs, False)):
            owner = expanded.owner
            if (isinstance(owner, tile.ExpandDimsOp) and tile.rank_of(owner.src.type) == 1
                    and tile.rank_of(scalar.type) == 0 and not tile.is_pointer_like(scalar.type)
                    and not isinstance(scalar.type, (tile.AnyValueType, tile.ConstexprType))
                    and not isinstance(T.element_of(owner.src.type), tile.AnyValueType)):
                a, b = (scalar, owner.src) if first else (owner.src, scalar)
                inner = self.ctx.insert(op_class(a, b, T.broadcast(a.type, b.type))).results[0]
                shape = list(T.shape_of(inner.type))
                shape.insert(owner.axis.value.data if owner.axis.value.data >= 0 else len(shape) + 1 + owner.axis.value.data, 1)
                result = T.make_type(tuple(shape), T.element_of(inner.type))
                hoisted = self.ctx.insert(tile.ExpandDimsOp(inner, owner.axis.value.data, result)).results[0]
                if not owner.results[0].uses:  # the expansion written in the source: nothing else reads it
                    owner.detach()
                    owner.erase()
                return hoisted
        return None

    def unary(self, node: ast.UnaryOp) -> SSAValue:
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            if isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
                return self.ctx.constant(-node.operand.value, node)
        operand = self.ctx.ssa(self.expr(node.operand), node)
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.USub):
            return self.ctx.insert(tile.NegOp(operand, operand.type)).results[0]
        if isinstance(node.op, ast.Not):
            return self.ctx.insert(tile.NotOp(operand, T.with_element(operand.type, i1))).results[0]
        return self.ctx.insert(tile.InvertOp(operand, operand.type)).results[0]

    def subscript(self, node: ast.Subscript) -> SSAValue:
        value = self.ctx.ssa(self.expr(node.value), node.value)
        size = self.descriptor_block_size(value, node)
        if size is not None:
            return size
        index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        result = value
        for position, element in enumerate(index):
            if isinstance(element, ast.Constant) and element.value is None:
                result_type = T.ANY
                if not isinstance(result.type, tile.AnyValueType):
                    shape = list(T.shape_of(result.type))
                    shape.insert(position, 1)
                    result_type = T.make_type(tuple(shape), T.element_of(result.type))
                result = self.ctx.insert(tile.ExpandDimsOp(result, position, result_type)).results[0]
            elif isinstance(element, ast.Slice) and element.lower is None and element.upper is None and element.step is None:
                continue
            else:
                raise self.ctx.unsupported(node, "subscript (only `:` and `None`, as in x[:, None])")
        return result

    def descriptor_block_size(self, value: SSAValue, node: ast.Subscript) -> SSAValue | None:
        """`desc.block_shape[d]` as one op the analysis can name (the extent
        of a host descriptor's blocks), None for any other subscript."""
        attr = value.op if isinstance(value, OpResult) else None
        if not (isinstance(attr, tile.AttrOp) and attr.path.data == "block_shape"
                and isinstance(attr.src.type, tile.DescriptorType)):
            return None
        dim = node.slice
        if not (isinstance(dim, ast.Constant) and type(dim.value) is int and 0 <= dim.value < attr.src.type.rank.data):
            raise self.ctx.unsupported(node, f"descriptor block_shape index (write `block_shape[d]` with d an integer "
                                         f"literal below the descriptor's rank {attr.src.type.rank.data})")
        size = self.ctx.insert(tile.DescriptorBlockSizeOp(attr.src, dim.value)).results[0]
        if not attr.res.uses:
            attr.detach()
            attr.erase()
        return size

    def attribute(self, node: ast.Attribute) -> Value:
        path = self.ctx.callee_path(node, required=False)
        if path is not None:
            return PyRef(path)
        base = self.ctx.ssa(self.expr(node.value), node.value)
        if node.attr == "T":
            return self.ctx.insert(tile.TransOp(operands=[base], result_types=[self.transposed(base.type)])).results[0]
        chain = [node.attr]
        return self.ctx.insert(
            tile.AttrOp(operands=[base], properties={"path": StringAttr(".".join(chain))}, result_types=[tile.ConstexprType()])
        ).results[0]

    def transposed(self, type_: Attribute) -> Attribute:
        shape = T.shape_of(type_)
        if len(shape) != 2:
            return T.ANY
        return T.make_type((shape[1], shape[0]), T.element_of(type_))
