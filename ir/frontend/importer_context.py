"""What the parts of :class:`~syncopate.ir.frontend.triton_import.FunctionImporter` share.

One jit function is imported by one ``FunctionImporter``, put together from
one importer per job: :mod:`~syncopate.ir.frontend.statements` (the function
body, assignments, loops and branches), :mod:`~syncopate.ir.frontend.expressions`
(operators, comparisons, subscripts, attributes),
:mod:`~syncopate.ir.frontend.calls` (calls of builtins, jit helpers and
methods) and :mod:`~syncopate.ir.frontend.tl_calls` (the ``tl.*`` functions
with an op of their own). Each job holds the function's
:class:`ImporterContext`: the state they share (the module importer, the
name environment, the builder and the statement being imported), the small
services every job needs (errors, inserting ops with their line, name
lookup, constants and literals), and the jobs themselves (``ctx.stmts``,
``ctx.exprs``, ``ctx.calls``, ``ctx.tl_calls``), through which a job reaches
another's methods. So no job module imports another, and the free functions
of the frontend's helper modules (block pointers, block starts, index
blocks) take the context.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    FileLineColLoc,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    NoneAttr,
    StringAttr,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from syncopate.dialects import tile
from syncopate.ir.frontend import block_pointers
from syncopate.ir.frontend import type_rules as T
from syncopate.ir.frontend.block_pointers import BlockPointer
from syncopate.ir.frontend.errors import FrontendError
from syncopate.ir.frontend import helper_modules
from syncopate.ir.frontend.tl_names import canonical_path

if TYPE_CHECKING:
    from syncopate.ir.frontend.calls import CallImporter
    from syncopate.ir.frontend.expressions import ExpressionImporter
    from syncopate.ir.frontend.statements import StatementImporter
    from syncopate.ir.frontend.tl_calls import TritonCallImporter
    from syncopate.ir.frontend.triton_import import ModuleImporter

TRITON = "triton"
TL = "triton.language"


@dataclass(frozen=True)
class PyRef:
    """A compile-time Python object: a module path (`tl`), a jit function, a dtype."""

    path: str


Value = SSAValue | PyRef | BlockPointer


def constexpr_annotation(node: ast.expr | None) -> bool:
    return node is not None and ast.unparse(node) in ("tl.constexpr", "triton.language.constexpr", "constexpr")


def is_none_literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


class ImporterContext:
    """The state and services the importer's jobs share, and the jobs (see
    the module doc; ``FunctionImporter`` sets ``stmts``, ``exprs``,
    ``calls``, ``tl_calls`` and ``fresh``, the context of a new importer
    for a jit helper inlined into this function)."""

    stmts: StatementImporter
    exprs: ExpressionImporter
    calls: CallImporter
    tl_calls: TritonCallImporter
    fresh: Callable[[ModuleImporter, ast.FunctionDef], ImporterContext]

    def __init__(self, module_importer: ModuleImporter, node: ast.FunctionDef, helper: bool = False):
        self.m = module_importer
        self.node = node
        self.helper = helper  # called by another jit function: its parameters may be blocks
        self.env: dict[str, Value] = {}
        self.builder: Builder
        self.where: ast.AST = node  # the statement being imported: its line becomes the ops' location
        # parameters of an inlined helper bound to the literal axes of its call (see `inline_call`)
        self.literal_axes: dict[str, int] = {}
        self.entry: Block | None = None  # the function's own block, whose arguments are its parameters

    def error(self, node: ast.AST, message: str) -> FrontendError:
        return FrontendError(self.m.filename, getattr(node, "lineno", self.node.lineno), message)

    def unsupported(self, node: ast.AST, what: str) -> FrontendError:
        snippet = (ast.unparse(node) if isinstance(node, ast.AST) else str(node)).splitlines()[0]
        if len(snippet) > 60:
            snippet = snippet[:57] + "..."
        return self.error(node, f"unsupported {what}: `{snippet}`")

    def is_constexpr_annotation(self, node: ast.expr | None) -> bool:
        """``tl.constexpr`` under any spelling (``tlc.constexpr``, ``from triton.language import constexpr as c``)."""
        return constexpr_annotation(node) or (
            isinstance(node, (ast.Name, ast.Attribute)) and self.callee_path(node, required=False) == f"{TL}.constexpr"
        )

    def insert(self, op: Operation) -> Operation:
        # every op keeps the Python line it came from, so pass errors can name it
        op.location = FileLineColLoc(
            StringAttr(self.m.filename), IntAttr(self.where.lineno), IntAttr(self.where.col_offset + 1)
        )
        self.builder.insert(op)
        return op

    def named(self, value: SSAValue, name: str) -> SSAValue:
        if value.name_hint is None and not isinstance(value.owner, Block):
            owner = value.owner
            # Constants shared by several names keep their own, unnamed identity.
            if not isinstance(owner, (arith.ConstantOp, tile.LiteralOp)):
                value.name_hint = name
        return value

    def lookup(self, name: str, node: ast.AST) -> Value:
        if name in self.env:
            return self.env[name]
        if name in self.m.jit_functions:
            return PyRef(f"jit:{name}")
        if name in self.m.aliases:
            return PyRef(canonical_path(self.m.aliases[name]))
        if name in ("min", "max", "float", "int", "range", "len", "print"):
            return PyRef(f"builtins.{name}")
        if name in self.m.globals:
            return self.global_constant(name, node)
        raise self.error(node, f"unsupported name `{name}`: not a parameter, local variable, jit function or import")

    def global_constant(self, name: str, node: ast.AST) -> SSAValue:
        """A module-level constexpr (``GROUP: tl.constexpr = 8``, ``GROUP = tl.constexpr(8)``,
        ``DTYPE = tl.float16``) used in a kernel: its literal value (Triton itself only lets
        kernels read constexpr globals)."""
        value = self.m.globals[name]
        if isinstance(value, ast.Call) and self.callee_path(value.func, required=False) == f"{TL}.constexpr" and len(value.args) == 1:
            value = value.args[0]
        literal = self.static_literal(value)
        if isinstance(literal, IntegerAttr) and literal.type == i1:
            return self.constant(bool(literal.value.data), node)
        if isinstance(literal, IntegerAttr):
            return self.constant(literal.value.data, node)
        if isinstance(literal, FloatAttr):
            return self.constant(literal.value.data, node)
        if literal is not None and not isinstance(literal, NoneAttr):
            return self.insert(tile.LiteralOp(literal)).results[0]
        raise self.error(
            node, f"unsupported global `{name}`: a kernel may read a module-level constant only when it is a literal "
            f"number, string or dtype (e.g. `{name}: tl.constexpr = 8`)"
        )

    def ssa(self, value: Value | list[Value], node: ast.AST) -> SSAValue:
        if isinstance(value, SSAValue):
            return value
        block_pointers.reject_in_value(self, value, node)
        if isinstance(value, PyRef) and value.path.startswith(f"{TL}."):
            dtype = self.dtype_of(value.path)
            if dtype is not None:
                return self.insert(tile.LiteralOp(dtype)).results[0]
        raise self.unsupported(node, "value (expected a tensor or scalar)")

    def dtype_of(self, path: str) -> Attribute | None:
        name = path.rsplit(".", 1)[-1]
        return T.DTYPES.get(T.DTYPE_ALIASES.get(name, name))

    def constant(self, value: bool | int | float, node: ast.AST) -> SSAValue:
        if isinstance(value, bool):
            attr = IntegerAttr(int(value), i1)
        elif isinstance(value, int):
            attr = IntegerAttr(value, i32 if -(2**31) <= value < 2**31 else i64)
        else:
            attr = FloatAttr(value, f32)
        return self.insert(arith.ConstantOp(attr)).results[0]

    def static_literal(self, node: ast.expr) -> Attribute | None:
        """A literal keyword argument (string, number, bool, None, dtype) as an attribute."""
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool):
                return IntegerAttr(int(value), i1)
            if isinstance(value, int):
                return IntegerAttr(value, i64)
            if isinstance(value, float):
                return FloatAttr(value, f32)
            if isinstance(value, str):
                return StringAttr(value)
            if value is None:
                return NoneAttr()
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            inner = self.static_literal(node.operand)
            if isinstance(inner, IntegerAttr):
                return IntegerAttr(-inner.value.data, i64)
            if isinstance(inner, FloatAttr):
                return FloatAttr(-inner.value.data, f32)
        if isinstance(node, (ast.Attribute, ast.Name)):
            path = self.callee_path(node, required=False)
            if path is not None:
                return self.dtype_of(path)
        return None

    def option_literal(self, node: ast.expr) -> Attribute | None:
        """A call option given as a literal or a constexpr parameter; None otherwise. (Tested
        against None: an attribute of ``False`` or ``0`` is falsy, and it is a literal too.)"""
        literal = self.static_literal(node)
        return literal if literal is not None else self.calls.constexpr_reference(node)

    def callee_path(self, node: ast.expr, required: bool = True) -> str | None:
        """Dotted path of a module-level object (`tl.math.exp2` -> triton.language.math.exp2)."""
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return None if not required else self._not_callable(node)
            if node.id in self.m.jit_functions:
                return f"jit:{node.id}"
            if node.id in self.m.aliases:
                return canonical_path(self.m.aliases[node.id])
            if node.id in ("min", "max", "float", "int", "range", "len", "print"):
                return node.id if node.id == "range" else f"builtins.{node.id}"
            if required:
                raise self.error(node, f"unsupported name `{node.id}`: not a jit function, builtin or import")
            return None
        if isinstance(node, ast.Attribute):
            if helper_modules.dotted_name(node) in self.m.jit_functions:
                return f"jit:{helper_modules.dotted_name(node)}"  # `tiles.tile_coords`: an imported module's helper
            base = self.callee_path(node.value, required=False)
            if base is None:
                return None if not required else self._not_callable(node)
            return canonical_path(f"{base}.{node.attr}")
        return None if not required else self._not_callable(node)

    def _not_callable(self, node: ast.expr) -> str:
        raise self.unsupported(node, "callee")

    def as_int(self, value: SSAValue) -> SSAValue:
        if value.type == i32:
            return value
        return self.insert(tile.RetypeOp(value, i32)).results[0]

    def as_condition(self, value: SSAValue) -> SSAValue:
        if value.type == i1:
            return value
        return self.insert(tile.RetypeOp(value, i1)).results[0]

    @contextmanager
    def in_block(self, block: Block) -> Iterator[None]:
        saved_builder, saved_env = self.builder, dict(self.env)
        self.builder = Builder(InsertPoint.at_end(block))
        try:
            yield
        finally:
            self.builder = saved_builder
            self.body_env, self.env = self.env, saved_env
