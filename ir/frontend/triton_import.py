"""Triton frontend: `@triton.jit` Python source -> `tile` dialect.

`import_file(path)` / `import_source(text, filename)` turn every jit function
of a Python file (kernels and the jit helpers they call) into a `tile.func` in
one `builtin.module`. Python variables become SSA values whose name hints are
the variable names; loop- and branch-carried variables become `scf.for` /
`scf.while` iter args and `scf.if` results. Anything not supported raises
`FrontendError` naming the file, line and construct: the frontend never
guesses.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    DictionaryAttr,
    FileLineColLoc,
    FloatAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue

from syncopate.dialects import python_grammar as grammar
from syncopate.dialects import tile
from syncopate.ir.frontend import block_pointers, block_starts
from syncopate.ir.frontend import type_rules as T
from syncopate.ir.frontend.block_pointers import BlockPointer
from syncopate.ir.frontend.errors import FrontendError, UnknownKernel
from syncopate.ir.frontend.index_blocks import literal_int
from syncopate.ir.frontend import helper_modules
from syncopate.ir.frontend.pointer_scan import descriptor_parameters, pointer_parameters
from syncopate.ir.frontend.prelude import join_prelude, part_at, prelude_parts
from syncopate.ir.frontend.tl_names import canonical_path

TRITON = "triton"
TL = "triton.language"

BINARY_OPS: dict[type[ast.operator], type[tile.BinaryOp]] = {
    ast.Add: tile.AddOp, ast.Sub: tile.SubOp, ast.Mult: tile.MulOp, ast.Div: tile.TrueDivOp,
    ast.FloorDiv: tile.FloorDivOp, ast.Mod: tile.ModOp, ast.BitAnd: tile.AndOp, ast.BitOr: tile.OrOp,
    ast.BitXor: tile.XorOp, ast.LShift: tile.ShlOp, ast.RShift: tile.ShrOp,
}  # fmt: skip
COMPARE_OPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
ATOMICS = {"atomic_add": "add", "atomic_max": "max", "atomic_min": "min", "atomic_and": "and",
           "atomic_or": "or", "atomic_xor": "xor", "atomic_xchg": "xchg"}  # fmt: skip
REDUCTIONS = {"sum": "sum", "max": "max", "min": "min", "argmax": "argmax", "argmin": "argmin",
              "xor_sum": "xor_sum"}  # fmt: skip
# tl.* functions whose result has the broadcast type of their tensor arguments.
ELEMENTWISE = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sqrt_rn", "abs", "sin", "cos", "sigmoid",
               "maximum", "minimum", "fma", "erf", "floor", "ceil", "div_rn", "fdiv", "clamp", "softmax",
               "multiple_of", "max_contiguous", "max_constancy", "cumsum", "cumprod", "flip", "tanh"}  # fmt: skip
LOOP_KINDS = {"range", f"{TL}.range", f"{TL}.static_range"}


@dataclass(frozen=True)
class PyRef:
    """A compile-time Python object: a module path (`tl`), a jit function, a dtype."""

    path: str


Value = SSAValue | PyRef | BlockPointer
# A loop-carried name: its value (None), one offset of a block pointer (the dim),
# or the scalar start of an index block `start + tl.arange(0, B)` (START)
Slot = tuple[str, int | str | None]
START = "start"
UNBOUND = object()  # a name one arm of a constexpr `if` leaves unbound (tile.undef)


def _is_jit_decorator(node: ast.expr, aliases: dict[str, str]) -> bool:
    """``@triton.jit``, ``@jit``, or an alias of it (``from triton import jit as tjit``)."""
    target = node.func if isinstance(node, ast.Call) else node
    text = ast.unparse(target)
    head, _, rest = text.partition(".")
    resolved = aliases.get(head, head) + (f".{rest}" if rest else "")
    return text in ("triton.jit", "jit", "tl.jit") or resolved in ("triton.jit", "triton.runtime.jit.jit")


def _decorate_call_form_jits(tree: ast.Module, aliases: dict[str, str]) -> None:
    """``kernel = triton.jit(fn)`` (or ``triton.jit(fn, do_not_specialize=...)``)
    at module level makes the plain function ``fn`` a jit function, as the
    decorator would: give ``fn`` that decorator, so it is imported (and
    emitted) as one. The assignment itself is host code the import leaves
    alone; ``fn`` keeps its own name, the one the launched JITFunction
    reports."""
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Assign) else None
        if not (isinstance(call, ast.Call) and _is_jit_decorator(call, aliases) and len(call.args) == 1
                and isinstance(call.args[0], ast.Name) and call.args[0].id in functions):
            continue
        fn = functions[call.args[0].id]
        if any(_is_jit_decorator(d, aliases) for d in fn.decorator_list):
            continue  # jit twice: Triton itself refuses it when the file runs
        decorator = ast.Call(func=call.func, args=[], keywords=call.keywords) if call.keywords else call.func
        fn.decorator_list.append(ast.copy_location(decorator, call))


def _is_constexpr_annotation(node: ast.expr | None) -> bool:
    return node is not None and ast.unparse(node) in ("tl.constexpr", "triton.language.constexpr", "constexpr")


def _module_aliases(tree: ast.Module) -> dict[str, str]:
    aliases = {"triton": TRITON}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and isinstance(node.value, ast.Attribute) and (dotted := helper_modules.dotted_name(node.value))):
            # `triton_cast = tl.cast` (Unsloth): a module-level name for a triton function is
            # that function, as an import under another name would be
            head, _, rest = dotted.partition(".")
            last = rest.rsplit(".", 1)[-1]
            if (head in aliases and aliases[head].split(".")[0] == TRITON and rest
                    and T.DTYPE_ALIASES.get(last, last) not in T.DTYPES):  # `DTYPE = tl.float16` stays a constexpr global
                aliases[node.targets[0].id] = f"{aliases[head]}.{rest}"
    return aliases


def _assigned_names(statements: list[ast.stmt]) -> list[str]:
    """Names (re)bound by statements, in first-assignment order, recursively."""
    names: list[str] = []

    def add_target(target: ast.expr) -> None:
        if isinstance(target, ast.Name) and target.id not in names:
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                add_target(element)

    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    add_target(target)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                add_target(node.target)
            elif isinstance(node, ast.For):
                add_target(node.target)
    return names


class FunctionImporter:
    """Builds one tile.func from one jit FunctionDef."""

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

    # -- diagnostics -------------------------------------------------------

    def error(self, node: ast.AST, message: str) -> FrontendError:
        return FrontendError(self.m.filename, getattr(node, "lineno", self.node.lineno), message)

    def unsupported(self, node: ast.AST, what: str) -> FrontendError:
        snippet = (ast.unparse(node) if isinstance(node, ast.AST) else str(node)).splitlines()[0]
        if len(snippet) > 60:
            snippet = snippet[:57] + "..."
        return self.error(node, f"unsupported {what}: `{snippet}`")

    def is_constexpr_annotation(self, node: ast.expr | None) -> bool:
        """``tl.constexpr`` under any spelling (``tlc.constexpr``, ``from triton.language import constexpr as c``)."""
        return _is_constexpr_annotation(node) or (
            isinstance(node, (ast.Name, ast.Attribute)) and self.callee_path(node, required=False) == f"{TL}.constexpr"
        )

    # -- building ------------------------------------------------------------

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

    def build(self) -> tile.FuncOp:
        node = self.node
        if node.args.vararg or node.args.kwarg or node.args.posonlyargs:
            raise self.error(node, f"unsupported parameter kind in `{node.name}` (*args, **kwargs, positional-only `/`)")
        parameters = _parameters(node, self.error)
        pointers = pointer_parameters(node, self.m.aliases) | self.m.inlined_pointer_arguments(node)
        descriptors = descriptor_parameters(node)
        helper = self.helper
        arg_types: list[Attribute] = []
        annotations: dict[str, Attribute] = {}
        for arg, _ in parameters:
            if self.is_constexpr_annotation(arg.annotation):
                arg_types.append(tile.ConstexprType())
            elif arg.arg in descriptors:
                arg_types.append(tile.DescriptorType(descriptors[arg.arg]))
            elif arg.arg in pointers:
                arg_types.append(tile.PointerType())
            else:
                arg_types.append(T.ANY if helper else tile.ScalarType())
            if arg.annotation is not None and not self.is_constexpr_annotation(arg.annotation):
                annotations[arg.arg] = StringAttr(ast.unparse(arg.annotation))
        block = Block(arg_types=arg_types)
        self.entry = block
        for (arg, _), block_arg in zip(parameters, block.args):
            block_arg.name_hint = arg.arg
            self.env[arg.arg] = block_arg
        defaults = {arg.arg: StringAttr(ast.unparse(default)) for arg, default in parameters if default is not None}
        self.builder = Builder(InsertPoint.at_end(block))
        body = list(node.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # docstring
        returned: list[SSAValue] = []
        if body and isinstance(body[-1], ast.Return):
            self.statements(_structured(body[:-1]))
            if body[-1].value is not None:
                returned = self.return_values(body[-1].value)
        else:
            self.statements(_structured(body))
        self.insert(tile.ReturnOp(*returned))
        func_type = FunctionType.from_lists(arg_types, [v.type for v in returned])
        decorators = [ast.unparse(d) for d in node.decorator_list]
        names = [arg.arg for arg, _ in parameters]
        return tile.FuncOp(node.name, func_type, Region(block), names, decorators, defaults, annotations)

    def return_values(self, node: ast.expr) -> list[SSAValue]:
        elements = node.elts if isinstance(node, ast.Tuple) else [node]
        return [self.ssa(self.expr(e), e) for e in elements]

    # -- statements ----------------------------------------------------------

    def statements(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        outer, self.where = self.where, node
        try:
            self.statement_body(node)
        finally:
            self.where = outer

    def statement_body(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign):
            value = self.expr(node.value)
            for target in node.targets:
                self.assign(target, value, node.value)
        elif isinstance(node, ast.AnnAssign):
            if node.value is None:
                raise self.unsupported(node, "annotation without value")
            value = self.expr(node.value)
            if self.is_constexpr_annotation(node.annotation) and isinstance(node.target, ast.Name):
                # `HALF: tl.constexpr = BLOCK // 2`: Triton needs the annotation to use HALF as a
                # block size; a constexpr retype keeps it through the IR (the emitter writes it back).
                value = self.insert(tile.RetypeOp(self.ssa(value, node.value), tile.ConstexprType())).results[0]
            self.assign(node.target, value, node.value)
        elif isinstance(node, ast.AugAssign):
            if not isinstance(node.target, ast.Name):
                raise self.unsupported(node, "augmented assignment target")
            current = self.lookup(node.target.id, node.target)
            result = self.binary(node.op, current, self.expr(node.value), node)
            self.assign(node.target, result, node)
        elif isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant):
                return  # a string used as a comment
            self.expr(node.value, statement=True)
        elif isinstance(node, (ast.For, ast.While)):
            self.for_loop(node) if isinstance(node, ast.For) else self.while_loop(node)
        elif isinstance(node, ast.If):
            self.if_statement(node)
        elif isinstance(node, ast.Pass):
            return
        elif isinstance(node, ast.Return):
            raise self.error(node, "unsupported `return` before the end of the function (early exit)")
        else:
            raise self.unsupported(node, f"statement ({type(node).__name__})")

    def assign(self, target: ast.expr, value: Value | list[Value], value_node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, list):
                raise self.error(target, f"cannot assign {len(value)} values to `{target.id}`")
            if isinstance(value, SSAValue):
                self.named(value, target.id)
            elif isinstance(value, BlockPointer):
                for d, offset in enumerate(value.offsets):
                    self.named(offset, f"{target.id}_off{d}")
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value if isinstance(value, list) else None
            if values is None or len(values) != len(target.elts):
                raise self.unsupported(target, "tuple assignment (right side must have as many values)")
            for element, element_value in zip(target.elts, values):
                self.assign(element, element_value, value_node)
        else:
            raise self.unsupported(target, "assignment target")

    def carried_names(self, statements: list[ast.stmt]) -> list[str]:
        return [n for n in _assigned_names(statements) if isinstance(self.env.get(n), (SSAValue, BlockPointer))]

    def carry_slots(self, names: list[str], whole: set[str]) -> list[Slot]:
        """The values a loop carries for ``names``: a block pointer carries
        its offsets (its tensor and block shape cannot change in the loop),
        an index block its start (ir/frontend/block_starts.py) unless it is
        in ``whole``."""
        slots: list[Slot] = []
        for name in names:
            value = self.env[name]
            if isinstance(value, BlockPointer):
                slots += [(name, d) for d in range(value.rank)]
            elif name not in whole and block_starts.start_form(value) is not None:
                slots.append((name, START))
            else:
                slots.append((name, None))
        return slots

    def lost_starts(self, slots: list[Slot], entry: dict[str, Value]) -> set[str]:
        """Names carried by their start whose value at the end of the body is
        no longer an index block of the same size: they must be carried whole."""
        return {name for name, kind in slots if kind == START and not block_starts.same_form(
            block_starts.start_form(self.env[name]), block_starts.start_form(entry[name]))}

    def slot_value(self, slot: Slot, entry: dict[str, Value], node: ast.AST) -> SSAValue:
        name, dim = slot
        value = self.env[name]
        if dim is None:
            block_pointers.reject_in_value(self, value, node)
            return self.ssa(value, node)
        if dim == START:
            return block_starts.start_of(self, block_starts.start_form(value), node)  # type: ignore[arg-type]
        if not isinstance(value, BlockPointer) or not value.same_block(entry[name]):  # type: ignore[arg-type]
            raise self.error(node, f"block pointer `{name}` is replaced in this loop by "
                                   f"{'another tensor or block shape' if isinstance(value, BlockPointer) else 'a value'}; "
                                   "move it with `tl.advance` instead")
        return value.offsets[dim]  # type: ignore[index]

    def bind_slots(self, slots: list[Slot], values: list[SSAValue], entry: dict[str, Value], at: ast.AST) -> None:
        offsets: dict[str, dict[int, SSAValue]] = {}
        for (name, dim), value in zip(slots, values):
            if dim is None:
                value.name_hint = name
                self.env[name] = value
            elif dim == START:
                value.name_hint = f"{name}_start"
                extent = block_starts.start_form(entry[name]).extent  # type: ignore[union-attr]
                self.env[name] = self.named(block_starts.rebuild(self, value, extent, at), name)
            else:
                value.name_hint = f"{name}_off{dim}"
                offsets.setdefault(name, {})[dim] = value  # type: ignore[index]
        for name, dims in offsets.items():
            pointer = entry[name]
            assert isinstance(pointer, BlockPointer)
            # a dim the loop does not advance keeps its offset from before the loop
            self.env[name] = replace(pointer, offsets=tuple(dims.get(d, o) for d, o in enumerate(pointer.offsets)))

    def next_slots(self, carried: list[str], slots: list[Slot], whole: set[str], forced_any: set[Slot],
                   lost: set[str], inits: list[SSAValue], args: list[SSAValue], yielded: list[SSAValue]
                   ) -> list[Slot] | None:
        """After one import of a loop body: None when its slots stand, else
        the slots to import it again with (``whole`` and ``forced_any``
        updated). Again when an index block carried by its start lost that
        form (carry it whole), when a value changed type (carry it as
        ``!tile.any``), or when a block-pointer offset is yielded unchanged
        (not carried, so the footprint sees the offset from before the loop)."""
        if lost:
            whole |= lost
            return self.carry_slots(carried, whole)
        mismatched = {n for n, i, y in zip(slots, inits, yielded) if i.type != y.type} - forced_any
        unadvanced = {slot for slot, arg, value in zip(slots, args, yielded) if isinstance(slot[1], int) and value is arg}
        if not mismatched and not unadvanced:
            return None
        forced_any |= mismatched
        return [slot for slot in slots if slot not in unadvanced]

    @contextmanager
    def in_block(self, block: Block) -> Iterator[None]:
        saved_builder, saved_env = self.builder, dict(self.env)
        self.builder = Builder(InsertPoint.at_end(block))
        try:
            yield
        finally:
            self.builder = saved_builder
            self.body_env, self.env = self.env, saved_env

    def as_int(self, value: SSAValue) -> SSAValue:
        if value.type == i32:
            return value
        return self.insert(tile.RetypeOp(value, i32)).results[0]

    def as_condition(self, value: SSAValue) -> SSAValue:
        if value.type == i1:
            return value
        return self.insert(tile.RetypeOp(value, i1)).results[0]

    def loop_bounds(self, node: ast.For) -> tuple[str, list[SSAValue], dict[str, Attribute]]:
        call = node.iter
        if not isinstance(call, ast.Call):
            raise self.unsupported(node.iter, "loop iterable (only range, tl.range, tl.static_range)")
        kind = self.callee_path(call.func)
        if kind not in LOOP_KINDS:
            raise self.unsupported(node.iter, "loop iterable (only range, tl.range, tl.static_range)")
        args = [self.ssa(self.expr(a), a) for a in call.args]
        if not 1 <= len(args) <= 3:
            raise self.unsupported(call, "range() arity")
        if len(args) == 1:
            args = [self.constant(0, call), args[0]]
        if len(args) == 2:
            args.append(self.constant(1, call))
        options: dict[str, Attribute] = {}
        for keyword in call.keywords:
            literal = self.option_literal(keyword.value)
            if literal is None:
                raise self.unsupported(keyword.value, f"`{keyword.arg}=` option of {kind} (a literal or constexpr parameter)")
            options[keyword.arg or ""] = literal
        return kind, [self.as_int(a) for a in args], options

    def for_loop(self, node: ast.For) -> None:
        if node.orelse:
            raise self.unsupported(node, "for ... else")
        if not isinstance(node.target, ast.Name):
            raise self.unsupported(node.target, "loop target (only a single name)")
        kind, (lb, ub, step), options = self.loop_bounds(node)
        carried = [n for n in self.carried_names(node.body) if n != node.target.id]
        entry = {name: self.env[name] for name in carried}
        whole: set[str] = set()
        slots = self.carry_slots(carried, whole)
        forced_any: set[Slot] = set()
        while True:
            inits = [self.carry_init(slot, forced_any, entry, node) for slot in slots]
            block = Block(arg_types=[i32, *(v.type for v in inits)])
            block.args[0].name_hint = node.target.id
            with self.in_block(block):
                self.env[node.target.id] = block.args[0]
                self.bind_slots(slots, list(block.args[1:]), entry, node)
                self.statements(node.body)
                lost = self.lost_starts(slots, entry)
                yielded = [] if lost else [self.slot_value(slot, entry, node) for slot in slots]
            retry = self.next_slots(carried, slots, whole, forced_any, lost, inits, list(block.args[1:]), yielded)
            if retry is None:
                break
            self.discard(block, inits)
            slots = retry
        with self.in_block(block):
            self.insert(scf.YieldOp(*yielded))
        loop = scf.ForOp(lb, ub, step, inits, Region(block))
        if kind != "range":
            loop.attributes["tile.loop"] = StringAttr(kind.rsplit(".", 1)[-1])
        for key, value in options.items():
            loop.attributes[f"tile.{key}"] = value
        self.insert(loop)
        self.bind_slots(slots, list(loop.results), entry, node)

    def carry_init(self, slot: Slot, forced_any: set[Slot], entry: dict[str, Value], at: ast.AST) -> SSAValue:
        name, dim = slot
        if dim == START:
            value = block_starts.start_of(self, block_starts.start_form(entry[name]), at)  # type: ignore[arg-type]
        else:
            value = entry[name].offsets[dim] if dim is not None else entry[name]  # type: ignore[union-attr,index]
        assert isinstance(value, SSAValue)
        if slot in forced_any and not isinstance(value.type, tile.AnyValueType):
            return self.insert(tile.RetypeOp(value, T.ANY)).results[0]
        return value

    def discard(self, block: Block, inits: list[SSAValue]) -> None:
        for op in reversed(list(block.walk())):
            op.drop_all_references()
        for init in inits:
            owner = init.owner
            if isinstance(owner, tile.RetypeOp) and not init.uses:
                owner.detach()
                owner.erase()

    def while_loop(self, node: ast.While) -> None:
        if node.orelse:
            raise self.unsupported(node, "while ... else")
        carried = self.carried_names(node.body)
        entry = {name: self.env[name] for name in carried}
        whole: set[str] = set()
        slots = self.carry_slots(carried, whole)
        forced_any: set[Slot] = set()
        while True:
            inits = [self.carry_init(slot, forced_any, entry, node) for slot in slots]
            before = Block(arg_types=[v.type for v in inits])
            after = Block(arg_types=[v.type for v in inits])
            with self.in_block(before):
                self.bind_slots(slots, list(before.args), entry, node)
                condition = self.as_condition(self.ssa(self.expr(node.test), node.test))
                self.insert(scf.ConditionOp(condition, *before.args))
            with self.in_block(after):
                self.bind_slots(slots, list(after.args), entry, node)
                self.statements(node.body)
                lost = self.lost_starts(slots, entry)
                yielded = [] if lost else [self.slot_value(slot, entry, node) for slot in slots]
            retry = self.next_slots(carried, slots, whole, forced_any, lost, inits, list(after.args), yielded)
            if retry is None:
                break
            self.discard(before, [])
            self.discard(after, inits)
            slots = retry
        with self.in_block(after):
            self.insert(scf.YieldOp(*yielded))
        loop = scf.WhileOp(inits, [v.type for v in inits], Region(before), Region(after))
        self.insert(loop)
        self.bind_slots(slots, list(loop.results), entry, node)

    def if_statement(self, node: ast.If) -> None:
        test = self.ssa(self.expr(node.test), node.test)
        compile_time = _compile_time(test)
        condition = self.as_condition(test)
        before = dict(self.env)
        then_block, else_block = Block(), Block()
        with self.in_block(then_block):
            self.statements(node.body)
        then_env = self.body_env
        with self.in_block(else_block):
            self.statements(node.orelse)
        else_env = self.body_env
        if compile_time:  # a name one arm binds is read only under the same condition (see tile.undef)
            for env, other in ((then_env, else_env), (else_env, then_env)):
                for n in _assigned_names(node.body + node.orelse):
                    if n in other and n not in env and n not in before and isinstance(other[n], SSAValue):
                        env[n] = UNBOUND
        names = [n for n in _assigned_names(node.body + node.orelse) if n in then_env and n in else_env]
        names = [n for n in names if then_env[n] is not before.get(n) or else_env[n] is not before.get(n)]
        for name in names:
            if not all(isinstance(env[name], SSAValue) or env[name] is UNBOUND for env in (then_env, else_env)):
                raise self.error(node, f"`{name}` is bound to a compile-time object in a branch of this `if`")
        for env, other in ((then_env, else_env), (else_env, then_env)):
            block = then_block if env is then_env else else_block
            for name in names:
                if env[name] is UNBOUND:
                    with self.in_block(block):
                        env[name] = self.insert(tile.UndefOp(other[name].type)).results[0]
        # index blocks `start + tl.arange(0, B)` on both sides leave the `if` as their start
        starts = {n: block_starts.start_form(then_env[n]) for n in names}
        starts = {n: f for n, f in starts.items() if block_starts.same_form(f, block_starts.start_form(else_env[n]))}
        yielded: dict[Block, list[SSAValue]] = {}
        for block, env in ((then_block, then_env), (else_block, else_env)):
            with self.in_block(block):
                yielded[block] = [
                    block_starts.start_of(self, block_starts.start_form(env[n]), node)  # type: ignore[arg-type]
                    if n in starts else env[n] for n in names  # type: ignore[misc]
                ]
        result_types = [T.join(a.type, b.type) for a, b in zip(yielded[then_block], yielded[else_block])]
        for block in (then_block, else_block):
            with self.in_block(block):
                values = []
                for value, result_type in zip(yielded[block], result_types):
                    if value.type != result_type:
                        value = self.insert(tile.RetypeOp(value, result_type)).results[0]
                    values.append(value)
                self.insert(scf.YieldOp(*values))
        op = scf.IfOp(condition, result_types, Region(then_block), Region(else_block))
        self.insert(op)
        for name, result in zip(names, op.results):
            result.name_hint = f"{name}_start" if name in starts else name
            form = starts.get(name)
            self.env[name] = result if form is None else self.named(
                block_starts.rebuild(self, result, form.extent, node), name)
        for name in _assigned_names(node.body + node.orelse):
            if name not in names and name not in before:
                self.env.pop(name, None)  # bound in one branch only: not visible after the if

    # -- expressions -----------------------------------------------------------

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
        return literal if literal is not None else self.constexpr_reference(node)

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

    def expr(self, node: ast.expr, statement: bool = False) -> Value | list[Value]:
        if isinstance(node, ast.Name):
            return self.lookup(node.id, node)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bool, int, float)):
                return self.constant(node.value, node)
            if isinstance(node.value, str) or node.value is None:
                value = StringAttr(node.value) if node.value is not None else NoneAttr()
                return self.insert(tile.LiteralOp(value)).results[0]
            raise self.unsupported(node, "constant")
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
            result = self.ssa(self.expr(node.values[0]), node)
            for operand in node.values[1:]:
                rhs = self.ssa(self.expr(operand), operand)
                result = self.insert(op_class(result, rhs, T.broadcast(result.type, rhs.type, i1))).results[0]
            return result
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Call):
            return self.call(node, statement)
        if isinstance(node, ast.Tuple):
            return [self.expr(e) for e in node.elts]  # type: ignore[misc]
        if isinstance(node, ast.IfExp):
            return self.if_expression(node)
        raise self.unsupported(node, f"expression ({type(node).__name__})")

    def comparison(self, node: ast.Compare) -> SSAValue:
        """``a < b``; a chain ``a <= b < c`` is ``(a <= b) & (b < c)`` with
        ``b`` evaluated once, as Python and Triton 3.9 read it. Written out
        with ``&``: Triton 3.6's code generator refuses chains, and ``&`` of
        two comparisons is the same on scalars and on blocks."""
        result: SSAValue | None = None
        lhs = self.ssa(self.expr(node.left), node)
        for operator, operand in zip(node.ops, node.comparators):
            op = COMPARE_OPS.get(type(operator))
            if op is None:
                what = "identity test in a chained comparison" if isinstance(operator, (ast.Is, ast.IsNot)) else \
                    "comparison operator"
                raise self.unsupported(node, what)
            rhs = self.ssa(self.expr(operand), operand)
            test = self.insert(tile.CmpOp(op, lhs, rhs, T.broadcast(lhs.type, rhs.type, i1))).results[0]
            result = test if result is None else self.insert(
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
        if _is_none(left) and not _is_none(right):
            left, right = right, left
        dtype = self.static_literal(right) if isinstance(right, ast.Attribute) else None
        if dtype is not None and not isinstance(dtype, (StringAttr, IntegerAttr, FloatAttr, NoneAttr)):
            # `x.dtype is tl.bfloat16` (Liger, Unsloth): a dtype, decided by Triton when it
            # compiles, like `==`; kept as written
            value = self.ssa(self.expr(left), left)
            literal = self.insert(tile.LiteralOp(dtype)).results[0]
            predicate = "is" if isinstance(node.ops[0], ast.Is) else "isnot"
            return self.insert(tile.CmpOp(predicate, value, literal, i1)).results[0]
        if not _is_none(right) or _is_none(left):
            raise self.error(
                node, f"unsupported identity test `{ast.unparse(node)}`: only `x is None`, `x is not None` and "
                "`x.dtype is tl.<dtype>` are supported (Triton decides them when it compiles; compare values with `==`)"
            )
        value = self.ssa(self.expr(left), left)
        none = self.insert(tile.LiteralOp(NoneAttr())).results[0]
        predicate = "is" if isinstance(node.ops[0], ast.Is) else "isnot"
        return self.insert(tile.CmpOp(predicate, value, none, i1)).results[0]

    def if_expression(self, node: ast.IfExp) -> SSAValue:
        """``a if c else b``: an ``scf.if`` with one result (each branch
        evaluates only its own operand, as in Python)."""
        condition = self.as_condition(self.ssa(self.expr(node.test), node.test))
        blocks, values = (Block(), Block()), []
        for block, branch in zip(blocks, (node.body, node.orelse)):
            with self.in_block(block):
                values.append(self.ssa(self.expr(branch), branch))
        result_type = T.join(values[0].type, values[1].type)
        for block, value in zip(blocks, values):
            with self.in_block(block):
                if value.type != result_type:
                    value = self.insert(tile.RetypeOp(value, result_type)).results[0]
                self.insert(scf.YieldOp(value))
        op = self.insert(scf.IfOp(condition, [result_type], Region(blocks[0]), Region(blocks[1])))
        return op.results[0]

    def binary(self, op: ast.operator, lhs_v: Value | list[Value], rhs_v: Value | list[Value], node: ast.AST) -> SSAValue:
        op_class = BINARY_OPS.get(type(op))
        if op_class is None:
            raise self.unsupported(node, "binary operator")
        lhs, rhs = self.ssa(lhs_v, node), self.ssa(rhs_v, node)  # type: ignore[arg-type]
        if op_class is tile.AddOp and tile.is_pointer_like(lhs.type):
            return self.insert(tile.AddPtrOp(lhs, rhs, T.broadcast(lhs.type, rhs.type))).results[0]
        if op_class is tile.AddOp and tile.is_pointer_like(rhs.type):  # `row + out_ptr`: the same address
            return self.insert(tile.AddPtrOp(rhs, lhs, T.broadcast(rhs.type, lhs.type))).results[0]
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
        return self.insert(op_class(lhs, rhs, result_type)).results[0]

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
                inner = self.insert(op_class(a, b, T.broadcast(a.type, b.type))).results[0]
                shape = list(T.shape_of(inner.type))
                shape.insert(owner.axis.value.data if owner.axis.value.data >= 0 else len(shape) + 1 + owner.axis.value.data, 1)
                result = T.make_type(tuple(shape), T.element_of(inner.type))
                hoisted = self.insert(tile.ExpandDimsOp(inner, owner.axis.value.data, result)).results[0]
                if not owner.results[0].uses:  # the expansion written in the source: nothing else reads it
                    owner.detach()
                    owner.erase()
                return hoisted
        return None

    def unary(self, node: ast.UnaryOp) -> SSAValue:
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            if isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
                return self.constant(-node.operand.value, node)
        operand = self.ssa(self.expr(node.operand), node)
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.USub):
            return self.insert(tile.NegOp(operand, operand.type)).results[0]
        if isinstance(node.op, ast.Not):
            return self.insert(tile.NotOp(operand, T.with_element(operand.type, i1))).results[0]
        return self.insert(tile.InvertOp(operand, operand.type)).results[0]

    def subscript(self, node: ast.Subscript) -> SSAValue:
        value = self.ssa(self.expr(node.value), node.value)
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
                result = self.insert(tile.ExpandDimsOp(result, position, result_type)).results[0]
            elif isinstance(element, ast.Slice) and element.lower is None and element.upper is None and element.step is None:
                continue
            else:
                raise self.unsupported(node, "subscript (only `:` and `None`, as in x[:, None])")
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
            raise self.unsupported(node, f"descriptor block_shape index (write `block_shape[d]` with d an integer "
                                         f"literal below the descriptor's rank {attr.src.type.rank.data})")
        size = self.insert(tile.DescriptorBlockSizeOp(attr.src, dim.value)).results[0]
        if not attr.res.uses:
            attr.detach()
            attr.erase()
        return size

    def attribute(self, node: ast.Attribute) -> Value:
        path = self.callee_path(node, required=False)
        if path is not None:
            return PyRef(path)
        base = self.ssa(self.expr(node.value), node.value)
        if node.attr == "T":
            return self.insert(tile.TransOp(operands=[base], result_types=[self.transposed(base.type)])).results[0]
        chain = [node.attr]
        return self.insert(
            tile.AttrOp(operands=[base], properties={"path": StringAttr(".".join(chain))}, result_types=[tile.ConstexprType()])
        ).results[0]

    def transposed(self, type_: Attribute) -> Attribute:
        shape = T.shape_of(type_)
        if len(shape) != 2:
            return T.ANY
        return T.make_type((shape[1], shape[0]), T.element_of(type_))

    # -- calls ---------------------------------------------------------------

    def call(self, node: ast.Call, statement: bool) -> Value | list[Value]:
        func = node.func
        dotted = helper_modules.dotted_name(func)
        if dotted in self.m.unresolved:
            raise self.error(node, f"unsupported call to `{dotted}`: {self.m.unresolved[dotted]}")
        # Method calls on values: x.to(...), desc.load(...), x.sum(...)
        if isinstance(func, ast.Attribute) and self.callee_path(func, required=False) is None:
            base = self.ssa(self.expr(func.value), func.value)
            return self.method_call(base, func.attr, node)
        path = self.callee_path(func)
        assert path is not None
        if path.startswith("jit:"):
            return self.jit_call(path[4:], node)
        short = path.removeprefix(f"{TL}.")
        if path == f"{TRITON}.cdiv" or short == "cdiv":
            a, b = self.positional(node, 2)
            return self.insert(tile.CdivOp(a, b, T.broadcast(a.type, b.type))).results[0]
        if path == "builtins.float" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
            literal = node.args[0].value
            try:
                return self.constant(float(literal), node)
            except (TypeError, ValueError):
                raise self.unsupported(node, "float() argument") from None
        if path.startswith(TL + "."):
            handler = self.TL_HANDLERS.get(short)
            if handler is not None:
                return handler(self, node)
            if short in ATOMICS:
                return self.atomic(node, ATOMICS[short])
            if short in REDUCTIONS:
                return self.reduce(REDUCTIONS[short], self.positional(node, 1, at_least=True)[0], node, skip=1)
        if path in ("builtins.min", "builtins.max"):
            args = self.positional(node, 2)
            return self.generic_call(path.removeprefix("builtins."), node, args, {}, T.broadcast(args[0].type, args[1].type))
        if path.startswith(TL + ".") or path.startswith(TRITON + "."):
            return self.builtin_call(path, node, statement)
        raise self.unsupported(node, f"call to `{ast.unparse(func)}`")

    def positional(self, node: ast.Call, count: int, at_least: bool = False) -> list[SSAValue]:
        if len(node.args) < count or (not at_least and len(node.args) > count):
            raise self.error(node, f"`{ast.unparse(node.func)}` expects {count} positional argument(s)")
        return [self.ssa(self.expr(a), a) for a in node.args[: count if not at_least else len(node.args)]]

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
            param = self.env.get(node.id)
            if isinstance(param, BlockArgument) and isinstance(param.type, tile.ConstexprType):
                return SymbolRefAttr(node.id)
        return None

    def split_kwargs(self, node: ast.Call, skip: set[str]) -> tuple[dict[str, SSAValue], dict[str, Attribute]]:
        dynamic: dict[str, SSAValue] = {}
        static: dict[str, Attribute] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.unsupported(node, "**kwargs in a call")
            if keyword.arg in skip:
                continue
            literal = self.option_literal(keyword.value)
            if literal is not None:
                static[keyword.arg] = literal
            else:
                dynamic[keyword.arg] = self.ssa(self.expr(keyword.value), keyword.value)
        return dynamic, static

    def generic_call(
        self, callee: str, node: ast.Call, args: list[SSAValue], kwargs: dict[str, SSAValue],
        result_type: Attribute | None, static: dict[str, Attribute] | None = None,
    ) -> SSAValue | list[Value]:  # fmt: skip
        op = self.insert(tile.CallOp(callee, args, kwargs, static or {}, result_type))
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
            return self.insert(tile.TupleOp(elements, brackets=isinstance(node, ast.List))).results[0]
        return self.ssa(self.expr(node), node)

    def jit_call(self, name: str, node: ast.Call) -> SSAValue | list[Value]:
        callee = self.m.jit_functions[name]
        params = [a.arg for a in (*callee.args.args, *callee.args.kwonlyargs)]
        if len(node.args) > len(callee.args.args):
            raise self.error(node, f"`{name}` takes {len(callee.args.args)} positional argument(s), {len(node.args)} given")
        if node.keywords:
            args: list[ast.expr | None] = list(node.args) + [None] * (len(params) - len(node.args))
            for keyword in node.keywords:
                if keyword.arg not in params:
                    raise self.error(node, f"`{name}` has no parameter `{keyword.arg}`")
                args[params.index(keyword.arg)] = keyword.value
            if any(a is None for a in args):
                raise self.error(node, f"call to `{name}` must pass every parameter (defaults of jit helpers are not supported)")
            arg_nodes = [a for a in args if a is not None]
        else:
            arg_nodes = list(node.args)
        if len(arg_nodes) != len(params):
            raise self.error(node, f"`{name}` takes {len(params)} arguments, {len(arg_nodes)} given")
        raw = [self.expr(a) for a in arg_nodes]
        bound = self.m.block_pointer_parameters(name)
        for param, arg, value in zip(params, arg_nodes, raw):
            if param in bound and not isinstance(value, block_pointers.BlockPointer):
                raise self.error(
                    arg, f"jit helper `{name}` moves or reads `{param}` as a block pointer (tl.advance, "
                    f"boundary_check), but `{ast.unparse(arg)}` is no block pointer made by tl.make_block_ptr",
                )
        if any(isinstance(v, block_pointers.BlockPointer) for v in raw) or self.m.returns_block_pointer(name):
            # a block pointer is a compile-time record the lowering turns into pointer
            # arithmetic where it is used: the helper is imported into the caller, as
            # Triton itself inlines every jit call
            return self.inline_call(name, node, params, arg_nodes, raw, {}, why="takes or makes a block pointer")
        values = [self.ssa(v, a) for v, a in zip(raw, arg_nodes)]
        axes = self.m.axis_parameters(name)
        if axes:
            literal = {p: literal_int(v) for p, v in zip(params, values) if p in axes}
            if all(v in (0, 1, 2) for v in literal.values()):
                return self.inline_call(name, node, params, arg_nodes, values, literal)
            if not self.passes_own_axes(params, values, axes):
                param = next(p for p in params if p in axes and literal[p] not in (0, 1, 2))
                given = ast.unparse(arg_nodes[params.index(param)])
                raise self.error(
                    node, f"unsupported program axis: jit helper `{name}` reads `tl.program_id({param})` or "
                    f"`tl.num_programs({param})`, and `{param}` is `{given}` here; pass 0, 1 or 2 as a literal "
                    "(or a constexpr global) so the import knows which program id the kernel reads",
                )
        results = self.m.result_count(name)
        # the callee's own name: `from .utils import tile_id as tid` calls the carried `def tile_id`
        op = self.insert(tile.CallJitOp(callee.name, values, [T.ANY] * results))
        if results == 1:
            return op.results[0]
        return list(op.results)

    def passes_own_axes(self, params: list[str], values: list[SSAValue], axes: set[str]) -> bool:
        """A helper built on its own (not inlined) passes its own constexpr
        parameters on as the axes of the helper it calls: that call is only
        emitted, since every call the kernel makes is inlined."""
        if not self.helper:
            return False
        for param, value in zip(params, values):
            if param in axes and literal_int(value) is None and not (
                isinstance(value, BlockArgument) and value.owner is self.entry
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
        callee = self.m.jit_functions[name]
        owner = self.m.owners[name]
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
        inner = FunctionImporter(owner, callee, helper=True)
        inner.builder = self.builder
        inner.env = dict(zip(params, values))
        inner.literal_axes = {p: a for p, a in axes.items() if a is not None}
        inner.where = self.where
        inner.statements(statements)
        results: list[Value] = []
        if returned is not None:
            # a block pointer may come back (a helper that makes one): it stays a record
            elements = returned.elts if isinstance(returned, ast.Tuple) else [returned]
            results = [v if isinstance(v := inner.expr(e), BlockPointer) else inner.ssa(v, e) for e in elements]
        for arg, value in zip(arg_nodes, values):
            # a literal written at the call only for the inlined body: dead once its uses are gone
            fresh = not (isinstance(arg, ast.Name) and arg.id in self.env)
            if fresh and isinstance(value, SSAValue) and not value.uses and isinstance(value.owner, arith.ConstantOp):
                value.owner.detach()
                value.owner.erase()
        if len(results) == 1:
            return results[0]
        return list(results)

    def method_call(self, base: SSAValue, method: str, node: ast.Call) -> Value | list[Value]:
        if method == "to":
            dtype_node = self.keyword(node, "dtype", 0)
            dtype = self.static_literal(dtype_node) if dtype_node is not None else None
            kwargs, static = self.split_kwargs(node, {"dtype"})
            if dtype is None:
                if dtype_node is None:
                    raise self.error(node, "`.to()` needs a dtype")
                dtype_value = self.ssa(self.expr(dtype_node), dtype_node)
                return self.generic_call(".to", node, [base, dtype_value], kwargs, T.ANY, static)
            bitcast = static.pop("bitcast", None)
            if static or kwargs:
                raise self.unsupported(node, "`.to()` options")
            cast = tile.CastOp(
                operands=[base],
                properties={"dtype": dtype, **({"bitcast": bitcast} if isinstance(bitcast, IntegerAttr) else {})},
                result_types=[T.with_element(base.type, dtype)],
            )
            return self.insert(cast).results[0]
        if isinstance(base.type, tile.DescriptorType) and method in ("load", "store"):
            offsets_node = self.keyword(node, "offsets", 0)
            if not isinstance(offsets_node, (ast.List, ast.Tuple)):
                raise self.unsupported(node, "descriptor offsets (expected a list literal)")
            offsets = [self.ssa(self.expr(e), e) for e in offsets_node.elts]
            if method == "load":
                op = tile.DescriptorLoadOp(operands=[base, offsets], result_types=[T.ANY])
                return self.insert(op).results[0]
            value_node = self.keyword(node, "value", 1)
            if value_node is None:
                raise self.error(node, "descriptor store needs a value")
            value = self.ssa(self.expr(value_node), value_node)
            self.insert(tile.DescriptorStoreOp(operands=[base, offsets, value]))
            return []
        if method in REDUCTIONS:
            return self.reduce(REDUCTIONS[method], base, node, skip=0)
        if method == "trans":
            return self.insert(tile.TransOp(operands=[base], result_types=[self.transposed(base.type)])).results[0]
        args = [self.ssa(self.expr(a), a) for a in node.args]
        kwargs, static = self.split_kwargs(node, set())
        return self.generic_call(f".{method}", node, [base, *args], kwargs, T.ANY, static)

    def reduce(self, kind: str, src: SSAValue, node: ast.Call, skip: int) -> SSAValue:
        axis_node = self.keyword(node, "axis", skip)
        keep_node = self.keyword(node, "keep_dims", skip + 1)
        props: dict[str, Attribute] = {"kind": StringAttr(kind)}
        result_type: Attribute = T.ANY
        shape = T.shape_of(src.type)
        if axis_node is not None:
            axis = self.static_literal(axis_node)
            if not isinstance(axis, IntegerAttr):
                raise self.unsupported(node, "reduction axis (expected an integer literal)")
            props["axis"] = IntegerAttr(axis.value.data, i64)
            keep = self.static_literal(keep_node) if keep_node is not None else None
            if keep_node is not None and not isinstance(keep, IntegerAttr):
                raise self.unsupported(node, "keep_dims (expected True/False)")
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
            raise self.unsupported(node, "reduction arguments (only axis and keep_dims)")
        return self.insert(tile.ReduceOp(operands=[src], properties=props, result_types=[result_type])).results[0]

    def atomic(self, node: ast.Call, kind: str) -> SSAValue:
        ptr_node, value_node = self.keyword(node, "pointer", 0), self.keyword(node, "val", 1)
        if ptr_node is None or value_node is None:
            raise self.error(node, f"`{ast.unparse(node.func)}` needs a pointer and a value")
        ptr, value = self.ssa(self.expr(ptr_node), ptr_node), self.ssa(self.expr(value_node), value_node)
        mask_node = self.keyword(node, "mask", 2)
        mask = [self.ssa(self.expr(mask_node), mask_node)] if mask_node is not None else []
        props = self.sem_scope(node, 3)
        op = tile.AtomicRMWOp(
            operands=[ptr, value, mask],
            properties={"kind": StringAttr(kind), **props},
            result_types=[T.with_element(ptr.type, T.element_of(value.type)) if tile.rank_of(ptr.type) else T.ANY],
        )
        return self.insert(op).results[0]

    def sem_scope(self, node: ast.Call, first_position: int) -> dict[str, Attribute]:
        props: dict[str, Attribute] = {}
        for index, key in enumerate(("sem", "scope")):
            value_node = self.keyword(node, key, first_position + index)
            if value_node is None:
                continue
            literal = self.static_literal(value_node)
            if not isinstance(literal, StringAttr):
                raise self.unsupported(node, f"`{key}=` (expected a string literal)")
            props[key] = literal
        known = {"pointer", "val", "mask", "cmp", "sem", "scope"}
        for keyword in node.keywords:
            if keyword.arg not in known:
                raise self.unsupported(node, f"`{keyword.arg}=` of {ast.unparse(node.func)}")
        return props

    # -- tl.* handlers with first-class ops --------------------------------------

    def tl_program_id(self, node: ast.Call) -> SSAValue:
        return self.axis_op(tile.ProgramIdOp, node)

    def tl_num_programs(self, node: ast.Call) -> SSAValue:
        return self.axis_op(tile.NumProgramsOp, node)

    def axis_op(self, op_class: type[tile.ProgramIdOp] | type[tile.NumProgramsOp], node: ast.Call) -> SSAValue:
        axis_node = self.keyword(node, "axis", 0)
        axis = self.static_literal(axis_node) if axis_node is not None else None
        if isinstance(axis_node, ast.Name) and axis_node.id in self.literal_axes:
            axis = IntegerAttr(self.literal_axes[axis_node.id], i64)
        if not isinstance(axis, IntegerAttr) and self.helper and isinstance(axis_node, ast.Name):
            param = self.env.get(axis_node.id)
            if isinstance(param, BlockArgument) and isinstance(param.type, tile.ConstexprType):
                # a helper built on its own: every call the kernel makes is inlined with its axis
                # (`inline_call`), so this body is only emitted, as written
                callee = "tl.program_id" if op_class is tile.ProgramIdOp else "tl.num_programs"
                return self.generic_call(callee, node, [param], {}, i32)
        if not isinstance(axis, IntegerAttr):
            raise self.unsupported(node, "program axis (expected 0, 1 or 2)")
        return self.insert(op_class(axis.value.data)).results[0]

    def literal_dim(self, value: SSAValue) -> int:
        literal = literal_int(value)
        return tile.DYNAMIC if literal is None else literal

    def tl_arange(self, node: ast.Call) -> SSAValue:
        start, end = self.positional(node, 2)
        size = tile.DYNAMIC
        if self.literal_dim(start) != tile.DYNAMIC and self.literal_dim(end) != tile.DYNAMIC:
            size = self.literal_dim(end) - self.literal_dim(start)
        return self.insert(tile.ArangeOp(start, end, tile.BlockType([size], i32))).results[0]

    def shape_operands(self, node: ast.expr | None, call: ast.Call) -> list[SSAValue]:
        if isinstance(node, (ast.Tuple, ast.List)):
            return [self.ssa(self.expr(e), e) for e in node.elts]
        if node is not None:
            return [self.ssa(self.expr(node), node)]
        raise self.error(call, f"`{ast.unparse(call.func)}` needs a shape")

    def tl_zeros(self, node: ast.Call) -> SSAValue:
        shape = self.shape_operands(self.keyword(node, "shape", 0), node)
        dtype_node = self.keyword(node, "dtype", 1)
        dtype = self.static_literal(dtype_node) if dtype_node is not None else None
        if dtype is None and self.computed_dtype(dtype_node):
            return self.dtype_call("tl.zeros", node, shape, [], dtype_node)  # type: ignore[arg-type]
        if dtype is None or isinstance(dtype, (StringAttr, IntegerAttr, NoneAttr)):
            raise self.unsupported(node, "tl.zeros dtype (expected tl.<dtype>)")
        result = tile.BlockType([self.literal_dim(s) for s in shape], dtype)
        op = tile.ZerosOp(operands=[shape], properties={"dtype": dtype}, result_types=[result])
        return self.insert(op).results[0]

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
        dtype = self.ssa(self.expr(dtype_node), dtype_node)
        dims = [self.literal_dim(s) for s in shape]
        packed = self.insert(tile.TupleOp(shape, brackets=False)).results[0]
        result = tile.BlockType(dims, T.ANY) if dims else T.ANY
        return self.generic_call(callee, node, [packed, *args], {"dtype": dtype}, result, {})  # type: ignore[return-value]

    def tl_full(self, node: ast.Call) -> SSAValue:
        shape = self.shape_operands(self.keyword(node, "shape", 0), node)
        value_node = self.keyword(node, "value", 1)
        dtype_node = self.keyword(node, "dtype", 2)
        dtype = self.static_literal(dtype_node) if dtype_node is not None else None
        if value_node is not None and dtype is None and self.computed_dtype(dtype_node):
            value = self.ssa(self.expr(value_node), value_node)
            return self.dtype_call("tl.full", node, shape, [value], dtype_node)  # type: ignore[arg-type]
        if value_node is None or dtype is None or isinstance(dtype, (StringAttr, IntegerAttr, NoneAttr)):
            raise self.unsupported(node, "tl.full arguments (shape, value, dtype=tl.<dtype>)")
        value = self.ssa(self.expr(value_node), value_node)
        result = tile.BlockType([self.literal_dim(s) for s in shape], dtype) if shape else dtype  # () is 0-d
        op = tile.SplatOp(operands=[value, shape], properties={"dtype": dtype}, result_types=[result])
        return self.insert(op).results[0]

    def tl_broadcast_to(self, node: ast.Call) -> SSAValue:
        src = self.ssa(self.expr(node.args[0]), node.args[0]) if node.args else None
        if src is None:
            raise self.error(node, "tl.broadcast_to needs a value")
        shape_nodes = node.args[1:] if len(node.args) > 2 else [self.keyword(node, "shape", 1)]
        shape: list[SSAValue] = []
        for shape_node in shape_nodes:
            shape += self.shape_operands(shape_node, node)
        result = T.make_type(tuple(self.literal_dim(s) for s in shape), T.element_of(src.type))
        return self.insert(tile.BroadcastOp(operands=[src, shape], result_types=[result])).results[0]

    def tl_expand_dims(self, node: ast.Call) -> SSAValue:
        src = self.positional(node, 1, at_least=True)[0]
        axis = self.static_literal(self.keyword(node, "axis", 1) or node)
        if not isinstance(axis, IntegerAttr):
            raise self.unsupported(node, "expand_dims axis (expected an integer literal)")
        shape = list(T.shape_of(src.type))
        position = axis.value.data if axis.value.data >= 0 else len(shape) + 1 + axis.value.data
        shape.insert(position, 1)
        result = T.make_type(tuple(shape), T.element_of(src.type)) if not isinstance(src.type, tile.AnyValueType) else T.ANY
        return self.insert(tile.ExpandDimsOp(src, axis.value.data, result)).results[0]

    def tl_load(self, node: ast.Call) -> SSAValue:
        ptr_node = self.keyword(node, "pointer", 0)
        if ptr_node is None:
            raise self.error(node, "tl.load needs a pointer")
        pointer = self.expr(ptr_node)
        if isinstance(pointer, BlockPointer):
            return block_pointers.load(self, pointer, node)
        ptr = self.pointer_operand(self.ssa(pointer, ptr_node), ptr_node, "tl.load")
        mask_node, other_node = self.keyword(node, "mask", 1), self.keyword(node, "other", 2)
        mask = [self.ssa(self.expr(mask_node), mask_node)] if mask_node is not None and not _is_none(mask_node) else []
        other = [self.ssa(self.expr(other_node), other_node)] if other_node is not None and not _is_none(other_node) else []
        kwargs, static = self.split_kwargs(node, {"pointer", "mask", "other"})
        if kwargs or len(node.args) > 3:
            raise self.unsupported(node, "tl.load arguments (options must be literals)")
        result = T.with_element(ptr.type, T.ANY) if tile.rank_of(ptr.type) else T.ANY
        op = tile.LoadOp(
            operands=[ptr, mask, other], properties=_static_kwargs(static), result_types=[result]
        )
        return self.insert(op).results[0]

    def tl_store(self, node: ast.Call) -> list[Value]:
        ptr_node, value_node = self.keyword(node, "pointer", 0), self.keyword(node, "value", 1)
        if ptr_node is None or value_node is None:
            raise self.error(node, "tl.store needs a pointer and a value")
        pointer = self.expr(ptr_node)
        if isinstance(pointer, BlockPointer):
            block_pointers.store(self, pointer, node)
            return []
        ptr = self.pointer_operand(self.ssa(pointer, ptr_node), ptr_node, "tl.store")
        value = self.ssa(self.expr(value_node), value_node)
        mask_node = self.keyword(node, "mask", 2)
        mask = [self.ssa(self.expr(mask_node), mask_node)] if mask_node is not None and not _is_none(mask_node) else []
        kwargs, static = self.split_kwargs(node, {"pointer", "value", "mask"})
        if kwargs or len(node.args) > 3:
            raise self.unsupported(node, "tl.store arguments (options must be literals)")
        self.insert(tile.StoreOp(operands=[ptr, value, mask], properties=_static_kwargs(static)))
        return []

    def pointer_operand(self, ptr: SSAValue, node: ast.expr, what: str) -> SSAValue:
        """``ptr``, refused where it is no pointer: the parameter it comes
        from was not recognised as one (frontend/pointer_scan.py)."""
        if tile.is_pointer_like(ptr.type) or isinstance(ptr.type, tile.AnyValueType):
            return ptr
        raise self.error(node, f"the pointer operand of {what} is not a pointer (`{ast.unparse(node)}` has type "
                               f"{ptr.type}): write the pointer parameter first, `x_ptr + offsets`, as Triton code does")

    def tl_dot(self, node: ast.Call) -> SSAValue:
        a_node, b_node, acc_node = self.keyword(node, "a", 0), self.keyword(node, "b", 1), self.keyword(node, "acc", 2)
        if a_node is None or b_node is None:
            raise self.error(node, "tl.dot needs two operands")
        a, b = self.ssa(self.expr(a_node), a_node), self.ssa(self.expr(b_node), b_node)
        acc = [self.ssa(self.expr(acc_node), acc_node)] if acc_node is not None and not _is_none(acc_node) else []
        kwargs, static = self.split_kwargs(node, {"a", "b", "acc"})
        if kwargs or len(node.args) > 3:
            raise self.unsupported(node, "tl.dot arguments (options must be literals)")
        a_shape, b_shape = T.shape_of(a.type), T.shape_of(b.type)
        if acc:
            result: Attribute = acc[0].type
        elif len(a_shape) == 2 and len(b_shape) == 2 and not isinstance(static.get("out_dtype"), SymbolRefAttr):
            element = static.get("out_dtype", f32)
            result = tile.BlockType([a_shape[0], b_shape[1]], element)
        else:
            result = T.ANY
        op = tile.DotOp(operands=[a, b, acc], properties=_static_kwargs(static), result_types=[result])
        return self.insert(op).results[0]

    def tl_where(self, node: ast.Call) -> SSAValue:
        c, x, y = self.positional(node, 3)
        result = T.broadcast(c.type, T.broadcast(x.type, y.type))
        if not isinstance(result, tile.AnyValueType):
            result = T.with_element(result, T.promote_elements(T.element_of(x.type), T.element_of(y.type)))
        return self.insert(tile.WhereOp(operands=[c, x, y], result_types=[result])).results[0]

    def tl_trans(self, node: ast.Call) -> SSAValue:
        if len(node.args) != 1 or node.keywords:
            return self.builtin_call(f"{TL}.trans", node, False)  # type: ignore[return-value]
        src = self.positional(node, 1)[0]
        return self.insert(tile.TransOp(operands=[src], result_types=[self.transposed(src.type)])).results[0]

    def tl_atomic_cas(self, node: ast.Call) -> SSAValue:
        ptr_node, cmp_node, val_node = (self.keyword(node, k, i) for i, k in enumerate(("pointer", "cmp", "val")))
        if ptr_node is None or cmp_node is None or val_node is None:
            raise self.error(node, "tl.atomic_cas needs pointer, cmp and val")
        operands = [self.ssa(self.expr(n), n) for n in (ptr_node, cmp_node, val_node)]
        props = self.sem_scope(node, 3)
        result = T.with_element(operands[0].type, T.ANY) if tile.rank_of(operands[0].type) else T.ANY
        op = tile.AtomicCASOp(operands=operands, properties=props, result_types=[result])
        return self.insert(op).results[0]

    def tl_make_tensor_descriptor(self, node: ast.Call) -> SSAValue:
        base_node = self.keyword(node, "base", 0)
        if base_node is None:
            raise self.error(node, "tl.make_tensor_descriptor needs a base pointer")
        base = self.ssa(self.expr(base_node), base_node)
        lists = []
        for index, key in enumerate(("shape", "strides", "block_shape")):
            list_node = self.keyword(node, key, index + 1)
            if not isinstance(list_node, (ast.List, ast.Tuple)):
                raise self.unsupported(node, f"tensor descriptor `{key}` (expected a list literal)")
            lists.append([self.ssa(self.expr(e), e) for e in list_node.elts])
        extra = {kw.arg for kw in node.keywords} - {"base", "shape", "strides", "block_shape"}
        if extra:
            raise self.unsupported(node, f"tensor descriptor option(s) {sorted(e or '' for e in extra)}")
        op = tile.MakeTensorDescriptorOp(operands=[base, *lists], result_types=[tile.DescriptorType(len(lists[0]))])
        return self.insert(op).results[0]

    def tl_make_block_ptr(self, node: ast.Call) -> BlockPointer:
        return block_pointers.make(self, node)

    def tl_advance(self, node: ast.Call) -> BlockPointer:
        return block_pointers.advance(self, node)

    TL_HANDLERS: dict[str, Callable[[FunctionImporter, ast.Call], Value | list[Value]]] = {
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
        "atomic_cas": tl_atomic_cas,
        "make_tensor_descriptor": tl_make_tensor_descriptor,
    }


def _parameters(
    node: ast.FunctionDef, error: Callable[[ast.AST, str], FrontendError]
) -> list[tuple[ast.arg, ast.expr | None]]:
    """The parameters of ``node`` with their defaults, keyword-only ones
    (after ``*``) last, as ordinary parameters: Triton 3.9's ``@triton.jit``
    binds keyword-only parameters but Triton 3.6's does not, so the emitted
    kernel declares them without the ``*`` (every launch that passes them by
    keyword binds them the same way). An ordinary parameter without a
    default cannot follow one with a default, so a keyword-only parameter
    without one after any parameter with one is refused."""
    args = node.args
    positional = list(zip(args.args, [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)))
    keyword_only = list(zip(args.kwonlyargs, args.kw_defaults))
    defaulted: ast.arg | None = None  # the first parameter with a default
    for arg, default in positional + keyword_only:
        if default is None and defaulted is not None and arg in args.kwonlyargs:
            raise error(
                arg, f"keyword-only parameter `{arg.arg}` of `{node.name}` has no default but follows `{defaulted.arg}`, "
                "which has one: the emitted kernel declares keyword-only parameters as ordinary ones (Triton 3.6's "
                f"@triton.jit does not bind keyword-only parameters), so give `{arg.arg}` a default or declare it "
                f"before `{defaulted.arg}`",
            )
        defaulted = defaulted or (arg if default is not None else None)
    return positional + keyword_only


def _called_names(node: ast.AST) -> list[str]:
    """The dotted names (``f``, ``tiles.f``) called in ``node``, in order."""
    names = (helper_modules.dotted_name(c.func) for c in ast.walk(node) if isinstance(c, ast.Call))
    return [n for n in names if n is not None]


def _compile_time(value: SSAValue) -> bool:
    """Whether Triton decides ``value`` when it compiles the kernel: a
    constexpr, a literal, or a comparison, ``not``, ``and`` or ``or`` of
    such (``NAME == "relu"``, ``not HAS_BIAS and A > 1``)."""
    if isinstance(value.type, tile.ConstexprType):
        return True
    op = value.owner
    if isinstance(op, (arith.ConstantOp, tile.LiteralOp)):
        return True
    if isinstance(op, (tile.CmpOp, tile.NotOp, tile.LogicalAndOp, tile.LogicalOrOp)):
        return all(_compile_time(operand) for operand in op.operands)
    return False


def _structured(body: list[ast.stmt], rest: list[ast.stmt] | None = None) -> list[ast.stmt]:
    """``body`` and then ``rest``, without early exits: every bare ``return``
    outside a loop, however deeply nested in ``if``s, is removed, and what
    would have run after it (the rest of its block, of every block around
    it, and ``rest``) moves into the arms that fall through instead (Triton's
    early exit). A statement list that may run on is copied into each such
    arm; the arms of an ``if`` with no exit stay as they are. A ``return``
    inside a loop, or followed by statements of its own block (which never
    run), is left for the importer to refuse."""
    rest = rest or []
    for index, statement in enumerate(body):
        if isinstance(statement, ast.Return) and statement.value is None:
            # statements after it never run: left in place for the importer's error at the return
            return body[:index] if index == len(body) - 1 else body
        if isinstance(statement, ast.If) and (_may_exit(statement.body) or _may_exit(statement.orelse)):
            after = body[index + 1:] + rest
            arms = (_structured(statement.body, after) or [ast.Pass()],
                    _structured(statement.orelse, after) or [ast.Pass()])
            return body[:index] + [ast.copy_location(ast.If(test=statement.test, body=arms[0], orelse=arms[1]),
                                                     statement)]
    return body + (_structured(rest) if rest else [])  # the rest may hold exits of its own


def _may_exit(body: list[ast.stmt]) -> bool:
    """Whether a bare ``return`` outside loops ends some path through ``body``."""
    return any((isinstance(s, ast.Return) and s.value is None)
               or (isinstance(s, ast.If) and (_may_exit(s.body) or _may_exit(s.orelse))) for s in body)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _static_kwargs(values: dict[str, Attribute]) -> dict[str, Attribute]:
    return {"static_kwargs": DictionaryAttr(values)} if values else {}


@dataclass(frozen=True)
class ParameterRole:
    """A way a jit function uses one of its parameters, found by walking
    the call graph (:meth:`ModuleImporter.parameters_in_role`): which
    parameters may have it, which calls use one (``is_use`` of the call's
    canonical ``triton.language`` path, None for other callees) and which
    argument of such a call is the parameter used."""

    name: str
    candidates: Callable[[ast.FunctionDef], set[str]]
    is_use: Callable[[str | None, ast.Call], bool]
    argument: Callable[[ast.Call], ast.expr | None]


def _all_parameters(node: ast.FunctionDef) -> set[str]:
    return {a.arg for a in (*node.args.args, *node.args.kwonlyargs)}


def _constexpr_parameters(node: ast.FunctionDef) -> set[str]:
    return {a.arg for a in (*node.args.args, *node.args.kwonlyargs) if _is_constexpr_annotation(a.annotation)}


def _argument(call: ast.Call, keywords: tuple[str, ...]) -> ast.expr | None:
    """The argument of ``call`` given by one of ``keywords``, else its first positional one."""
    return next((k.value for k in call.keywords if k.arg in keywords), call.args[0] if call.args else None)


PROGRAM_AXIS = ParameterRole(
    "program axis", _constexpr_parameters,
    lambda path, call: path in (f"{TL}.program_id", f"{TL}.num_programs"),
    lambda call: _argument(call, ("axis",)))
BLOCK_POINTER = ParameterRole(
    "block pointer", _all_parameters,
    lambda path, call: path == f"{TL}.advance" or (
        path in (f"{TL}.load", f"{TL}.store")
        and bool({k.arg for k in call.keywords} & {"boundary_check", "padding_option"})),
    lambda call: _argument(call, ("base", "pointer")))


class ModuleImporter:
    """Imports every jit function of one Python file, and the jit helpers its
    jit functions call that it imports from other modules of the user's
    package (``from .utils import tile_id``, see ``helper_modules.py``)."""

    def __init__(self, source: str, filename: str, session: dict[Path, ModuleImporter] | None = None):
        self.filename = filename
        try:
            self.tree = ast.parse(source, filename)
        except SyntaxError as error:
            raise FrontendError(filename, error.lineno or 0, f"Python syntax error: {error.msg}") from None
        self.source = source
        self.aliases = _module_aliases(self.tree)
        self.globals: dict[str, ast.expr] = {}
        for statement in self.tree.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                self.globals[statement.targets[0].id] = statement.value
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
                self.globals[statement.target.id] = statement.value
        _decorate_call_form_jits(self.tree, self.aliases)
        self.own_functions: dict[str, ast.FunctionDef] = {
            node.name: node
            for node in self.tree.body
            if isinstance(node, ast.FunctionDef) and any(_is_jit_decorator(d, self.aliases) for d in node.decorator_list)
        }
        # local name -> jit function, this file's own and the imported helpers its jit functions call
        self.jit_functions: dict[str, ast.FunctionDef] = dict(self.own_functions)
        self.owners: dict[str, ModuleImporter] = {name: self for name in self.own_functions}
        self.unresolved: dict[str, str] = {}  # imported names called as functions, with why they are no helper
        # role name -> jit function -> its parameters in that role (parameters_in_role)
        self.role_cache: dict[str, dict[str, set[str]]] = {}
        self.session = {} if session is None else session  # source file -> its importer, each file parsed once
        self.session[Path(filename).resolve()] = self
        self.import_helpers()

    def import_helpers(self) -> None:
        """Bind the imported names this file's jit functions call (``f``,
        ``tiles.f``) to the jit helpers they name in their modules' source
        (read, never run)."""
        origins = helper_modules.import_origins(self.tree)
        called = {name for node in self.own_functions.values() for name in _called_names(node)}
        for callee in sorted(called - set(self.own_functions)):
            helper = helper_modules.helper_of(callee, origins)
            if helper is None:
                continue
            where = helper_modules.spelled(helper)
            path = helper_modules.module_file(Path(self.filename), helper)
            if path is None:
                roots = ", ".join(str(r) for r in helper_modules.search_roots(Path(self.filename), helper.level)[:2])
                self.unresolved[callee] = f"its module `{where}` was not found (looked under {roots})"
                continue
            module = self.session.get(path.resolve()) or ModuleImporter(path.read_text(), str(path), self.session)
            if helper.function not in module.jit_functions:
                self.unresolved[callee] = f"`{helper.function}` is not a @triton.jit function of {path.name} (module `{where}`)"
                continue
            self.jit_functions[callee] = module.jit_functions[helper.function]
            self.owners[callee] = module.owners[helper.function]

    def build_function(self, node: ast.FunctionDef, helper: bool) -> tile.FuncOp:
        try:
            return FunctionImporter(self, node, helper).build()
        except FrontendError:
            raise
        except Exception as error:  # a frontend bug: still name the function, not a traceback
            raise FrontendError(
                self.filename, node.lineno, f"internal error while importing `{node.name}`: {type(error).__name__}: {error}"
            ) from error

    def result_count(self, name: str) -> int:
        node = self.jit_functions[name]
        last = node.body[-1] if node.body else None
        if isinstance(last, ast.Return) and last.value is not None:
            return len(last.value.elts) if isinstance(last.value, ast.Tuple) else 1
        return 0

    def axis_parameters(self, name: str) -> set[str]:
        """The constexpr parameters of jit function ``name`` that are
        program axes: passed to ``tl.program_id`` / ``tl.num_programs`` as
        the axis, or to a parameter of that kind of a jit helper it calls
        (FlagGems' ``tle.program_id(axis)``)."""
        return self.parameters_in_role(name, PROGRAM_AXIS)

    def block_pointer_parameters(self, name: str) -> set[str]:
        """The parameters of jit function ``name`` it uses as block pointers:
        moved with ``tl.advance``, loaded or stored with ``boundary_check`` /
        ``padding_option``, or passed on to such a parameter of a helper it
        calls. Such a helper is inlined at every call (``inline_call``) and
        not emitted on its own: the lowered kernel has no block pointer to
        pass it."""
        return self.parameters_in_role(name, BLOCK_POINTER)

    def parameters_in_role(self, name: str, role: ParameterRole, visiting: frozenset[str] = frozenset()) -> set[str]:
        """The parameters of jit function ``name`` (among ``role.candidates``)
        that it uses in ``role``: as the argument ``role.argument`` of a call
        ``role.is_use`` accepts, or passed on to a parameter in that role of
        a jit helper it calls (walked down the call graph, each function
        once per role; a recursive call is not followed)."""
        node = self.jit_functions[name]
        owner = self.owners[name]
        cache = owner.role_cache.setdefault(role.name, {})
        if node.name in cache:
            return cache[node.name]
        candidates = role.candidates(node)
        found: set[str] = set()
        for call in ast.walk(node):
            if not isinstance(call, ast.Call):
                continue
            dotted = helper_modules.dotted_name(call.func)
            if dotted is None:
                continue
            head, _, rest = dotted.partition(".")
            path = canonical_path(owner.aliases[head] + (f".{rest}" if rest else "")) if head in owner.aliases else None
            if role.is_use(path, call):
                used = role.argument(call)
                if isinstance(used, ast.Name) and used.id in candidates:
                    found.add(used.id)
            elif dotted in owner.jit_functions and owner.jit_functions[dotted].name not in visiting:
                callee = owner.jit_functions[dotted]
                inner = owner.parameters_in_role(dotted, role, visiting | {node.name})
                names = [a.arg for a in (*callee.args.args, *callee.args.kwonlyargs)]
                passed = dict(zip(names, call.args)) | {k.arg: k.value for k in call.keywords if k.arg}
                found |= {v.id for p, v in passed.items()
                          if p in inner and isinstance(v, ast.Name) and v.id in candidates}
        cache[node.name] = found
        return found

    def returns_block_pointer(self, name: str) -> bool:
        """Jit function ``name`` returns a block pointer it made or moved
        (``return tl.make_block_ptr(...)``, or a name it assigned one):
        inlined at every call, like a helper taking one."""
        node = self.jit_functions[name]
        owner = self.owners[name]

        def makes(value: ast.expr | None) -> bool:
            dotted = helper_modules.dotted_name(value.func) if isinstance(value, ast.Call) else None
            if dotted is None:
                return False
            head, _, rest = dotted.partition(".")
            path = canonical_path(owner.aliases[head] + (f".{rest}" if rest else "")) if head in owner.aliases else None
            return path in (f"{TL}.make_block_ptr", f"{TL}.advance")

        made = {t.id for a in ast.walk(node) if isinstance(a, ast.Assign) and makes(a.value)
                for t in a.targets if isinstance(t, ast.Name)}
        for ret in (r for r in ast.walk(node) if isinstance(r, ast.Return) and r.value is not None):
            elements = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
            if any(makes(e) or (isinstance(e, ast.Name) and e.id in made) for e in elements):
                return True
        return False

    def inlined_pointer_arguments(self, node: ast.FunctionDef) -> set[str]:
        """Names ``node`` passes to a pointer parameter of a helper inlined
        into it (``row_block(y_ptr, ...)`` making a block pointer on
        ``y_ptr``): pointers of ``node`` once the helper's body is its own."""
        found: set[str] = set()
        for call in ast.walk(node):
            dotted = helper_modules.dotted_name(call.func) if isinstance(call, ast.Call) else None
            if dotted is None or dotted not in self.jit_functions or not self.inlined(dotted):
                continue
            callee, owner = self.jit_functions[dotted], self.owners[dotted]
            names = [a.arg for a in (*callee.args.args, *callee.args.kwonlyargs)]
            passed = dict(zip(names, call.args)) | {k.arg: k.value for k in call.keywords if k.arg}
            pointers = pointer_parameters(callee, owner.aliases) | owner.inlined_pointer_arguments(callee)
            found |= {v.id for p, v in passed.items() if p in pointers and isinstance(v, ast.Name)}
        return found

    def inlined(self, name: str) -> bool:
        """Jit function ``name`` is imported into its callers, never emitted on its own."""
        return bool(self.block_pointer_parameters(name)) or self.returns_block_pointer(name)

    def callees(self, node: ast.FunctionDef) -> list[str]:
        """Local names of the jit functions ``node`` calls, in call order; a
        helper taking a block pointer is inlined at its calls, so what it
        calls is named instead of it."""
        found: list[str] = []
        owner = self
        for n in _called_names(node):
            if n not in owner.jit_functions:
                continue
            if owner.inlined(n):
                found += owner.owners[n].callees(owner.jit_functions[n])
            else:
                found.append(n)
        return list(dict.fromkeys(found))

    def emitted_functions(self) -> list[str]:
        """This file's jit functions but the helpers taking or returning a
        block pointer (inlined at every call, see :meth:`inlined`); a kernel
        nothing calls is emitted whatever it does with block pointers (a
        `tl.advance` of a parameter is then refused where it is)."""
        called = {n for node in self.own_functions.values() for n in _called_names(node)}
        return [n for n in self.own_functions if n not in called or not self.inlined(n)]

    def reachable(self, roots: list[str] | None = None) -> dict[str, tuple[ModuleImporter, ast.FunctionDef]]:
        """Symbol -> (owner, def) of this file's jit functions (or of
        ``roots`` among them) and the imported helpers they reach. One
        emitted module holds them all, so two different functions may not
        share a name."""
        functions: dict[str, tuple[ModuleImporter, ast.FunctionDef]] = {}
        names = self.emitted_functions() if roots is None else roots
        pending = [(self, self.own_functions[name]) for name in names]
        while pending:
            owner, node = pending.pop(0)
            known = functions.get(node.name)
            if known is not None and known[1] is not node:
                raise FrontendError(
                    owner.filename, node.lineno, f"jit function `{node.name}` is defined in both {Path(known[0].filename).name} "
                    f"and {Path(owner.filename).name}; the fused file holds both, so rename one"
                )
            if known is not None:
                continue
            functions[node.name] = (owner, node)
            pending += [(owner.owners[n], owner.jit_functions[n]) for n in owner.callees(node)]
        return functions

    def build(self, kernel: str | None = None, left_out: list[FrontendError] | None = None) -> ModuleOp:
        """The tile module of this file's jit functions. With ``kernel``, only
        that kernel and what it reaches must import: another kernel of the
        file the frontend refuses (with what it alone reaches) is left out,
        its error appended to ``left_out``, so one unsupported sibling does
        not stop the fusion of the kernel asked for."""
        if not self.own_functions:
            raise FrontendError(self.filename, 1, "no @triton.jit function found")
        if kernel is not None and kernel not in self.own_functions:
            raise UnknownKernel(self.filename, f"no kernel named '{kernel}' (kernels: {', '.join(self.own_functions)})")
        everything = self.reachable()
        called = {owner.jit_functions[n].name for owner, node in everything.values() for n in owner.callees(node)}
        if kernel is None:
            functions = everything
            funcs = [owner.build_function(node, name in called) for name, (owner, node) in functions.items()]
        else:
            built: dict[str, tile.FuncOp] = {}
            for root in [kernel, *(n for n in self.emitted_functions() if n != kernel)]:
                new = {n: v for n, v in self.reachable([root]).items() if n not in built}
                try:
                    group = {name: owner.build_function(node, name in called) for name, (owner, node) in new.items()}
                except FrontendError as error:
                    if root == kernel:
                        raise
                    if left_out is not None:
                        left_out.append(error)
                    continue
                built.update(group)
            functions = {name: value for name, value in everything.items() if name in built}
            funcs = [built[name] for name in functions]
        module = ModuleOp(funcs)
        module.attributes["tile.source"] = StringAttr(Path(self.filename).name)
        origins: dict[str, tuple[str, int]] = {}
        parts = self.prelude({name: owner for name, (owner, _) in functions.items()}, origins)
        prelude = join_prelude(parts)
        if prelude:
            module.attributes[grammar.PRELUDE_ATTR] = StringAttr(prelude)
            try:
                grammar.prelude_scope(prelude, grammar.prelude_what(module))
            except grammar.ForbiddenPython as error:  # name the kernel file's line, not the prelude's
                index, offset = part_at(prelude, parts, error.line)
                filename, line = origins[parts[index]]
                raise FrontendError(filename, line + offset, f"{error.construct!r} {error.reason}") from None
        for func, (owner, node) in zip(funcs, functions.values()):
            _check_fragments(func, module, owner.filename, _first_line(node))
        return module

    def prelude(self, owners: dict[str, ModuleImporter], origins: dict[str, tuple[str, int]]) -> list[str]:
        """The module-level Python of this file, then of each helper module,
        that the carried functions reach, one text per statement; the imports
        of carried helpers are left out (the emitted file defines them).
        ``origins`` receives each text's file and first line."""
        modules = list(dict.fromkeys([self, *owners.values()]))
        parts: list[str] = []
        for module in modules:
            carried = {name for name, owner in owners.items() if owner is module}
            # `tiles` of a carried `tiles.tile_coords(...)` is no longer needed: the call names the carried def
            defined = set(module.jit_functions) | {n.split(".")[0] for n in module.jit_functions if "." in n}
            package = helper_modules.package_of(Path(module.filename)) if Path(module.filename).is_file() else None
            lines: dict[str, int] = {}
            for part in prelude_parts(module.tree, module.source, carried, defined=defined, package=package,
                                      statement_lines=lines):
                if part not in parts:
                    parts.append(part)
                    origins[part] = (module.filename, lines[part])
        return parts


def _check_fragments(func: tile.FuncOp, module: ModuleOp, filename: str, line: int) -> None:
    """The decorators, defaults and annotations of ``func`` are of the grammar
    an emitted file may hold (dialects/python_grammar.py); a refusal names the
    function's first line (``line`` of ``filename``)."""
    try:
        func.verify_fragments(grammar.module_scope(module), f"`{func.sym_name.data}`")
    except grammar.ForbiddenPython as error:
        raise FrontendError(filename, line, f"{error.what}: {error.construct!r} {error.reason}") from None


def _first_line(node: ast.FunctionDef) -> int:
    """A definition starts at its first decorator."""
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


def import_source(
    source: str, filename: str = "<string>", kernel: str | None = None, left_out: list[FrontendError] | None = None,
) -> ModuleOp:
    """Import every `@triton.jit` function of `source` into one tile module
    (with ``kernel``: see :meth:`ModuleImporter.build`)."""
    return import_source_files(source, filename, kernel, left_out)[0]


def import_source_files(
    source: str, filename: str = "<string>", kernel: str | None = None, left_out: list[FrontendError] | None = None,
) -> tuple[ModuleOp, tuple[str, ...]]:
    """:func:`import_source`, plus the files whose text the import read
    (``filename`` itself and every module of the user's package its jit
    helpers came from): what a cache of the result must check."""
    importer = ModuleImporter(source, filename)
    module = importer.build(kernel, left_out)
    try:
        module.verify()
    except Exception as error:  # a frontend bug, not a user error: say so plainly
        raise FrontendError(filename, 1, f"internal error: imported IR does not verify: {error}") from error
    return module, tuple(sorted(str(p) for p in importer.session if p.is_file()))


def import_file(path: str | Path) -> ModuleOp:
    path = Path(path)
    return import_source(path.read_text(), str(path))


