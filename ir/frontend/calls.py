"""Calls in a jit function: dispatch by callee (``tl.*`` functions with an
op of their own go to :mod:`~syncopate.ir.frontend.tl_calls`), generic
``tl`` calls, Python builtins, jit helpers (called, or inlined where they
take a block pointer or the caller's literal axes), tensor methods,
reductions and atomics. One job of
:class:`~syncopate.ir.frontend.triton_import.FunctionImporter` (see
:mod:`~syncopate.ir.frontend.importer_context`).
"""

from __future__ import annotations

import ast

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, SSAValue

from syncopate.dialects import tile
from syncopate.ir.frontend import block_pointers
from syncopate.ir.frontend import type_rules as T
from syncopate.ir.frontend.block_pointers import BlockPointer
from syncopate.ir.frontend.errors import FrontendError
from syncopate.ir.frontend.index_blocks import literal_int
from syncopate.ir.frontend import helper_modules
from syncopate.ir.frontend.importer_context import TL, TRITON, Value, ImporterContext

ATOMICS = {"atomic_add": "add", "atomic_max": "max", "atomic_min": "min", "atomic_and": "and",
           "atomic_or": "or", "atomic_xor": "xor", "atomic_xchg": "xchg"}  # fmt: skip


#: the atomic methods of a tensor descriptor (``c_desc.atomic_add([m, n], acc)``)
DESC_ATOMIC_METHODS = tuple(f"atomic_{kind}" for kind in tile.DESC_ATOMIC_KINDS)
REDUCTIONS = {"sum": "sum", "max": "max", "min": "min", "argmax": "argmax", "argmin": "argmin",
              "xor_sum": "xor_sum"}  # fmt: skip


# tl.* functions whose result has the broadcast type of their tensor arguments.
ELEMENTWISE = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sqrt_rn", "abs", "sin", "cos", "sigmoid",
               "maximum", "minimum", "fma", "erf", "floor", "ceil", "div_rn", "fdiv", "clamp", "softmax",
               "multiple_of", "max_contiguous", "max_constancy", "cumsum", "cumprod", "flip", "tanh"}  # fmt: skip


class CallImporter:
    """Imports calls (see the module doc)."""

    def __init__(self, ctx: ImporterContext) -> None:
        self.ctx = ctx

    def call(self, node: ast.Call, statement: bool) -> Value | list[Value]:
        func = node.func
        dotted = helper_modules.dotted_name(func)
        if dotted in self.ctx.m.unresolved:
            raise self.ctx.error(node, f"unsupported call to `{dotted}`: {self.ctx.m.unresolved[dotted]}")
        # Method calls on values: x.to(...), desc.load(...), x.sum(...)
        if isinstance(func, ast.Attribute) and self.ctx.callee_path(func, required=False) is None:
            base = self.ctx.ssa(self.ctx.exprs.expr(func.value), func.value)
            return self.method_call(base, func.attr, node)
        path = self.ctx.callee_path(func)
        assert path is not None
        if path.startswith("jit:"):
            return self.jit_call(path[4:], node)
        short = path.removeprefix(f"{TL}.")
        if path == f"{TRITON}.cdiv" or short == "cdiv":
            a, b = self.positional(node, 2)
            return self.ctx.insert(tile.CdivOp(a, b, T.broadcast(a.type, b.type))).results[0]
        if path == "builtins.float" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
            literal = node.args[0].value
            try:
                return self.ctx.constant(float(literal), node)
            except (TypeError, ValueError):
                raise self.ctx.unsupported(node, "float() argument") from None
        if path.startswith(TL + "."):
            handler = self.ctx.tl_calls.TL_HANDLERS.get(short)
            if handler is not None:
                return handler(self.ctx.tl_calls, node)
            if short in ATOMICS:
                return self.atomic(node, ATOMICS[short])
            if short in REDUCTIONS:
                return self.reduce(REDUCTIONS[short], self.positional(node, 1, at_least=True)[0], node, skip=1)
        if path in ("builtins.min", "builtins.max"):
            args = self.positional(node, 2)
            return self.generic_call(path.removeprefix("builtins."), node, args, {}, T.broadcast(args[0].type, args[1].type))
        if path.startswith(TL + ".") or path.startswith(TRITON + "."):
            return self.builtin_call(path, node, statement)
        raise self.ctx.unsupported(node, f"call to `{ast.unparse(func)}`")

    def positional(self, node: ast.Call, count: int, at_least: bool = False) -> list[SSAValue]:
        if len(node.args) < count or (not at_least and len(node.args) > count):
            raise self.ctx.error(node, f"`{ast.unparse(node.func)}` expects {count} positional argument(s)")
        return [self.ctx.ssa(self.ctx.exprs.expr(a), a) for a in node.args[: count if not at_least else len(node.args)]]

    def keyword(self, node: ast.Call, name: str, position: int | None = None) -> ast.expr | None:
        for keyword in node.keywords:
            if keyword.arg == name:
                return keyword.value
        if position is not None and len(node.args) > position:
            return node.args[position]
        return None

    def constexpr_reference(self, node: ast.expr) -> SymbolRefAttr | None:
        """``@NAME`` for a constexpr parameter of this function named as an
        option's value (``allow_tf32=ALLOW_TF32``), emitted as that name."""
        if isinstance(node, ast.Name):
            param = self.ctx.env.get(node.id)
            if isinstance(param, BlockArgument) and isinstance(param.type, tile.ConstexprType):
                return SymbolRefAttr(node.id)
        return None

    def split_kwargs(self, node: ast.Call, skip: set[str]) -> tuple[dict[str, SSAValue], dict[str, Attribute]]:
        dynamic: dict[str, SSAValue] = {}
        static: dict[str, Attribute] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.ctx.unsupported(node, "**kwargs in a call")
            if keyword.arg in skip:
                continue
            literal = self.ctx.option_literal(keyword.value)
            if literal is not None:
                static[keyword.arg] = literal
            else:
                dynamic[keyword.arg] = self.ctx.ssa(self.ctx.exprs.expr(keyword.value), keyword.value)
        return dynamic, static

    def generic_call(
        self, callee: str, node: ast.Call, args: list[SSAValue], kwargs: dict[str, SSAValue],
        result_type: Attribute | None, static: dict[str, Attribute] | None = None,
    ) -> SSAValue | list[Value]:  # fmt: skip
        op = self.ctx.insert(tile.CallOp(callee, args, kwargs, static or {}, result_type))
        return op.results[0] if op.results else []

    def builtin_call(self, path: str, node: ast.Call, statement: bool) -> SSAValue | list[Value]:
        callee = path.replace(f"{TL}.", "tl.", 1) if path.startswith(TL) else path
        if path.startswith(f"{TL}.extra.") and not ast.unparse(node.func).startswith("tl."):
            # `from triton.language.extra import libdevice`: `tl.extra.libdevice` is no attribute
            # chain of `tl` until that submodule is imported; the prelude carries the import, so
            # the full path resolves
            callee = path
        args = [self.argument(a) for a in node.args]
        kwargs, static = self.split_kwargs(node, set())
        name = path.rsplit(".", 1)[-1]
        result_type: Attribute | None = T.ANY
        if name in ELEMENTWISE and args:
            result_type = args[0].type
            for other in args[1:]:
                result_type = T.broadcast(result_type, other.type)
        if statement and name in ("debug_barrier", "static_print", "static_assert", "device_print", "device_assert"):
            result_type = None
        return self.generic_call(callee, node, args, kwargs, result_type, static)

    def argument(self, node: ast.expr) -> SSAValue:
        """A builtin's argument; a tuple or list literal (a shape, a
        permutation) stays one value."""
        if isinstance(node, (ast.Tuple, ast.List)):
            elements = [self.argument(e) for e in node.elts]
            return self.ctx.insert(tile.TupleOp(elements, brackets=isinstance(node, ast.List))).results[0]
        return self.ctx.ssa(self.ctx.exprs.expr(node), node)

    def jit_call(self, name: str, node: ast.Call) -> SSAValue | list[Value]:
        callee = self.ctx.m.jit_functions[name]
        params = [a.arg for a in (*callee.args.args, *callee.args.kwonlyargs)]
        if len(node.args) > len(callee.args.args):
            raise self.ctx.error(node, f"`{name}` takes {len(callee.args.args)} positional argument(s), {len(node.args)} given")
        if node.keywords:
            args: list[ast.expr | None] = list(node.args) + [None] * (len(params) - len(node.args))
            for keyword in node.keywords:
                if keyword.arg not in params:
                    raise self.ctx.error(node, f"`{name}` has no parameter `{keyword.arg}`")
                args[params.index(keyword.arg)] = keyword.value
            if any(a is None for a in args):
                raise self.ctx.error(node, f"call to `{name}` must pass every parameter (defaults of jit helpers are not supported)")
            arg_nodes = [a for a in args if a is not None]
        else:
            arg_nodes = list(node.args)
        if len(arg_nodes) != len(params):
            raise self.ctx.error(node, f"`{name}` takes {len(params)} arguments, {len(arg_nodes)} given")
        raw = [self.ctx.exprs.expr(a) for a in arg_nodes]
        bound = self.ctx.m.block_pointer_parameters(name)
        for param, arg, value in zip(params, arg_nodes, raw):
            if param in bound and not isinstance(value, block_pointers.BlockPointer):
                raise self.ctx.error(
                    arg, f"jit helper `{name}` moves or reads `{param}` as a block pointer (tl.advance, "
                    f"boundary_check), but `{ast.unparse(arg)}` is no block pointer made by tl.make_block_ptr",
                )
        if any(isinstance(v, block_pointers.BlockPointer) for v in raw) or self.ctx.m.returns_block_pointer(name):
            # a block pointer is a compile-time record the lowering turns into pointer
            # arithmetic where it is used: the helper is imported into the caller, as
            # Triton itself inlines every jit call
            return self.inline_call(name, node, params, arg_nodes, raw, {}, why="takes or makes a block pointer")
        values = [self.ctx.ssa(v, a) for v, a in zip(raw, arg_nodes)]
        axes = self.ctx.m.axis_parameters(name)
        if axes:
            literal = {p: literal_int(v) for p, v in zip(params, values) if p in axes}
            if all(v in (0, 1, 2) for v in literal.values()):
                return self.inline_call(name, node, params, arg_nodes, values, literal)
            if not self.passes_own_axes(params, values, axes):
                param = next(p for p in params if p in axes and literal[p] not in (0, 1, 2))
                given = ast.unparse(arg_nodes[params.index(param)])
                raise self.ctx.error(
                    node, f"unsupported program axis: jit helper `{name}` reads `tl.program_id({param})` or "
                    f"`tl.num_programs({param})`, and `{param}` is `{given}` here; pass 0, 1 or 2 as a literal "
                    "(or a constexpr global) so the import knows which program id the kernel reads",
                )
        results = self.ctx.m.result_count(name)
        # the callee's own name: `from .utils import tile_id as tid` calls the carried `def tile_id`
        op = self.ctx.insert(tile.CallJitOp(callee.name, values, [T.ANY] * results))
        if results == 1:
            return op.results[0]
        return list(op.results)

    def passes_own_axes(self, params: list[str], values: list[SSAValue], axes: set[str]) -> bool:
        """A helper built on its own (not inlined) passes its own constexpr
        parameters on as the axes of the helper it calls: that call is only
        emitted, since every call the kernel makes is inlined."""
        if not self.ctx.helper:
            return False
        for param, value in zip(params, values):
            if param in axes and literal_int(value) is None and not (
                isinstance(value, BlockArgument) and value.owner is self.ctx.entry
                and isinstance(value.type, tile.ConstexprType)
            ):
                return False
        return True

    def inline_call(
        self, name: str, node: ast.Call, params: list[str], arg_nodes: list[ast.expr], values: list[Value],
        axes: dict[str, int | None], why: str = "takes its program axis from a parameter",
    ) -> SSAValue | list[Value]:
        """A helper imported into the caller. One whose program axis is a
        constexpr parameter (``tl.program_id(axis)``), called with a literal
        axis: the kernel then holds the ``tile.program_id`` of that axis
        itself, which the footprint analysis and tile reordering read (they
        look at the kernel's program ids, not its helpers'). One passed a
        block pointer (the attention tutorial's ``_attn_fwd_inner``, which
        advances K and V through its loop): the record's offsets become the
        caller's values, so the accesses through it are the kernel's own and
        are bounded like any block-pointer access."""
        callee = self.ctx.m.jit_functions[name]
        owner = self.ctx.m.owners[name]
        body = list(callee.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # docstring
        returned = body[-1].value if body and isinstance(body[-1], ast.Return) else None
        statements = body[:-1] if body and isinstance(body[-1], ast.Return) else body
        early = next((r for s in statements for r in ast.walk(s) if isinstance(r, ast.Return)), None)
        if early is not None:
            raise FrontendError(
                owner.filename, early.lineno, f"jit helper `{name}` {why}, so "
                "it is inlined where it is called; end it in its only `return`",
            )
        inner = self.ctx.fresh(owner, callee)
        inner.builder = self.ctx.builder
        inner.env = dict(zip(params, values))
        inner.literal_axes = {p: a for p, a in axes.items() if a is not None}
        inner.where = self.ctx.where
        inner.stmts.statements(statements)
        results: list[Value] = []
        if returned is not None:
            # a block pointer may come back (a helper that makes one): it stays a record
            elements = returned.elts if isinstance(returned, ast.Tuple) else [returned]
            results = [v if isinstance(v := inner.exprs.expr(e), BlockPointer) else inner.ssa(v, e) for e in elements]
        for arg, value in zip(arg_nodes, values):
            # a literal written at the call only for the inlined body: dead once its uses are gone
            fresh = not (isinstance(arg, ast.Name) and arg.id in self.ctx.env)
            if fresh and isinstance(value, SSAValue) and not value.uses and isinstance(value.owner, arith.ConstantOp):
                value.owner.detach()
                value.owner.erase()
        if len(results) == 1:
            return results[0]
        return list(results)

    def method_call(self, base: SSAValue, method: str, node: ast.Call) -> Value | list[Value]:
        if method == "to":
            dtype_node = self.keyword(node, "dtype", 0)
            dtype = self.ctx.static_literal(dtype_node) if dtype_node is not None else None
            kwargs, static = self.split_kwargs(node, {"dtype"})
            if dtype is None:
                if dtype_node is None:
                    raise self.ctx.error(node, "`.to()` needs a dtype")
                dtype_value = self.ctx.ssa(self.ctx.exprs.expr(dtype_node), dtype_node)
                return self.generic_call(".to", node, [base, dtype_value], kwargs, T.ANY, static)
            bitcast = static.pop("bitcast", None)
            if static or kwargs:
                raise self.ctx.unsupported(node, "`.to()` options")
            cast = tile.CastOp(
                operands=[base],
                properties={"dtype": dtype, **({"bitcast": bitcast} if isinstance(bitcast, IntegerAttr) else {})},
                result_types=[T.with_element(base.type, dtype)],
            )
            return self.ctx.insert(cast).results[0]
        if isinstance(base.type, tile.DescriptorType) and method.startswith("atomic_"):
            kind = method.removeprefix("atomic_")
            if kind not in tile.DESC_ATOMIC_KINDS:
                known = ", ".join(f"atomic_{k}" for k in tile.DESC_ATOMIC_KINDS)
                raise self.ctx.error(node, f"a tensor descriptor has no `{method}` in Triton 3.6 (it has {known})")
        if isinstance(base.type, tile.DescriptorType) and method in ("load", "store", *DESC_ATOMIC_METHODS):
            extra = {kw.arg for kw in node.keywords} - {"offsets", "value"}
            if extra or len(node.args) > (1 if method == "load" else 2):
                raise self.ctx.unsupported(node, f"`.{method}()` arguments (only offsets and value)")
            offsets_node = self.keyword(node, "offsets", 0)
            if not isinstance(offsets_node, (ast.List, ast.Tuple)):
                raise self.ctx.unsupported(node, "descriptor offsets (expected a list literal)")
            offsets = [self.ctx.ssa(self.ctx.exprs.expr(e), e) for e in offsets_node.elts]
            if method == "load":
                op = tile.DescriptorLoadOp(operands=[base, offsets], result_types=[T.ANY])
                return self.ctx.insert(op).results[0]
            value_node = self.keyword(node, "value", 1)
            if value_node is None:
                raise self.ctx.error(node, f"descriptor `.{method}()` needs a value")
            value = self.ctx.ssa(self.ctx.exprs.expr(value_node), value_node)
            if method != "store":
                kind = StringAttr(method.removeprefix("atomic_"))
                self.ctx.insert(tile.DescriptorAtomicOp(operands=[base, offsets, value], properties={"kind": kind}))
                return []
            self.ctx.insert(tile.DescriptorStoreOp(operands=[base, offsets, value]))
            return []
        if method in REDUCTIONS:
            return self.reduce(REDUCTIONS[method], base, node, skip=0)
        if method == "trans":
            return self.ctx.insert(tile.TransOp(operands=[base], result_types=[self.ctx.exprs.transposed(base.type)])).results[0]
        args = [self.ctx.ssa(self.ctx.exprs.expr(a), a) for a in node.args]
        kwargs, static = self.split_kwargs(node, set())
        return self.generic_call(f".{method}", node, [base, *args], kwargs, T.ANY, static)

    def reduce(self, kind: str, src: SSAValue, node: ast.Call, skip: int) -> SSAValue:
        axis_node = self.keyword(node, "axis", skip)
        keep_node = self.keyword(node, "keep_dims", skip + 1)
        props: dict[str, Attribute] = {"kind": StringAttr(kind)}
        result_type: Attribute = T.ANY
        shape = T.shape_of(src.type)
        if axis_node is not None:
            axis = self.ctx.static_literal(axis_node)
            if not isinstance(axis, IntegerAttr):
                raise self.ctx.unsupported(node, "reduction axis (expected an integer literal)")
            props["axis"] = IntegerAttr(axis.value.data, i64)
            keep = self.ctx.static_literal(keep_node) if keep_node is not None else None
            if keep_node is not None and not isinstance(keep, IntegerAttr):
                raise self.ctx.unsupported(node, "keep_dims (expected True/False)")
            if keep is not None:
                props["keep_dims"] = IntegerAttr(int(bool(keep.value.data)), i1)
            if shape and -len(shape) <= axis.value.data < len(shape):
                new_shape = list(shape)
                if keep is not None and keep.value.data:
                    new_shape[axis.value.data] = 1
                else:
                    new_shape.pop(axis.value.data)
                element = i32 if kind in ("argmax", "argmin") else T.element_of(src.type)
                result_type = T.make_type(tuple(new_shape), element)
        elif shape:
            result_type = i32 if kind in ("argmax", "argmin") else T.element_of(src.type)
        extra = {kw.arg for kw in node.keywords} - {"axis", "keep_dims"}
        if extra or len(node.args) > skip + 2:
            raise self.ctx.unsupported(node, "reduction arguments (only axis and keep_dims)")
        return self.ctx.insert(tile.ReduceOp(operands=[src], properties=props, result_types=[result_type])).results[0]

    def atomic(self, node: ast.Call, kind: str) -> SSAValue:
        ptr_node, value_node = self.keyword(node, "pointer", 0), self.keyword(node, "val", 1)
        if ptr_node is None or value_node is None:
            raise self.ctx.error(node, f"`{ast.unparse(node.func)}` needs a pointer and a value")
        ptr, value = self.ctx.ssa(self.ctx.exprs.expr(ptr_node), ptr_node), self.ctx.ssa(self.ctx.exprs.expr(value_node), value_node)
        mask_node = self.keyword(node, "mask", 2)
        mask = [self.ctx.ssa(self.ctx.exprs.expr(mask_node), mask_node)] if mask_node is not None else []
        props = self.sem_scope(node, 3)
        op = tile.AtomicRMWOp(
            operands=[ptr, value, mask],
            properties={"kind": StringAttr(kind), **props},
            result_types=[T.with_element(ptr.type, T.element_of(value.type)) if tile.rank_of(ptr.type) else T.ANY],
        )
        return self.ctx.insert(op).results[0]

    def sem_scope(self, node: ast.Call, first_position: int) -> dict[str, Attribute]:
        props: dict[str, Attribute] = {}
        for index, key in enumerate(("sem", "scope")):
            value_node = self.keyword(node, key, first_position + index)
            if value_node is None:
                continue
            literal = self.ctx.static_literal(value_node)
            if not isinstance(literal, StringAttr):
                raise self.ctx.unsupported(node, f"`{key}=` (expected a string literal)")
            props[key] = literal
        known = {"pointer", "val", "mask", "cmp", "sem", "scope"}
        for keyword in node.keywords:
            if keyword.arg not in known:
                raise self.ctx.unsupported(node, f"`{keyword.arg}=` of {ast.unparse(node.func)}")
        return props
