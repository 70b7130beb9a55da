"""Statements of a jit function: its body, assignments, ``for`` and ``while``
loops (with the names they carry as ``scf`` iter args) and ``if``
statements (constexpr branches taken at import, others as ``scf.if``).
One job of :class:`~syncopate.ir.frontend.triton_import.FunctionImporter`
(see :mod:`~syncopate.ir.frontend.importer_context`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace

from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    FunctionType,
    StringAttr,
    i32,
)
from xdsl.ir import Attribute, Block, Region, SSAValue

from syncopate.dialects import tile
from syncopate.dialects.python_grammar import TLX_REFUSAL, is_tlx
from syncopate.ir.frontend import block_pointers, block_starts
from syncopate.ir.frontend import type_rules as T
from syncopate.ir.frontend.block_pointers import BlockPointer
from syncopate.ir.frontend.errors import FrontendError
from syncopate.ir.frontend.pointer_scan import descriptor_parameters, pointer_parameters
from syncopate.ir.frontend.importer_context import TL, Value, ImporterContext

LOOP_KINDS = {"range", f"{TL}.range", f"{TL}.static_range"}
# A loop-carried name: its value (None), one offset of a block pointer (the dim),
# or the scalar start of an index block `start + tl.arange(0, B)` (START)
Slot = tuple[str, int | str | None]
START = "start"
UNBOUND = object()  # a name one arm of a constexpr `if` leaves unbound (tile.undef)


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


def _may_exit(body: list[ast.stmt]) -> bool:
    """Whether a bare ``return`` outside loops ends some path through ``body``."""
    return any((isinstance(s, ast.Return) and s.value is None)
               or (isinstance(s, ast.If) and (_may_exit(s.body) or _may_exit(s.orelse))) for s in body)


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


class StatementImporter:
    """Imports statements (see the module doc)."""

    def __init__(self, ctx: ImporterContext) -> None:
        self.ctx = ctx

    def build(self) -> tile.FuncOp:
        node = self.ctx.node
        if node.args.vararg or node.args.kwarg or node.args.posonlyargs:
            raise self.ctx.error(node, f"unsupported parameter kind in `{node.name}` (*args, **kwargs, positional-only `/`)")
        parameters = _parameters(node, self.ctx.error)
        pointers = pointer_parameters(node, self.ctx.m.aliases) | self.ctx.m.inlined_pointer_arguments(node)
        descriptors = descriptor_parameters(node)
        helper = self.ctx.helper
        arg_types: list[Attribute] = []
        annotations: dict[str, Attribute] = {}
        for arg, _ in parameters:
            if self.ctx.is_constexpr_annotation(arg.annotation):
                arg_types.append(tile.ConstexprType())
            elif arg.arg in descriptors:
                arg_types.append(tile.DescriptorType(descriptors[arg.arg]))
            elif arg.arg in pointers:
                arg_types.append(tile.PointerType())
            else:
                arg_types.append(T.ANY if helper else tile.ScalarType())
            if arg.annotation is not None and not self.ctx.is_constexpr_annotation(arg.annotation):
                annotations[arg.arg] = StringAttr(ast.unparse(arg.annotation))
        block = Block(arg_types=arg_types)
        self.ctx.entry = block
        for (arg, _), block_arg in zip(parameters, block.args):
            block_arg.name_hint = arg.arg
            self.ctx.env[arg.arg] = block_arg
        defaults = {arg.arg: StringAttr(ast.unparse(default)) for arg, default in parameters if default is not None}
        self.ctx.builder = Builder(InsertPoint.at_end(block))
        body = list(node.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # docstring
        returned: list[SSAValue] = []
        if body and isinstance(body[-1], ast.Return):
            self.statements(_structured(body[:-1]))
            if body[-1].value is not None:
                # the returned expression's ops carry the `return` line, as a statement's do
                outer, self.ctx.where = self.ctx.where, body[-1]
                try:
                    returned = self.return_values(body[-1].value)
                finally:
                    self.ctx.where = outer
        else:
            self.statements(_structured(body))
        self.ctx.insert(tile.ReturnOp(*returned))
        func_type = FunctionType.from_lists(arg_types, [v.type for v in returned])
        decorators = [ast.unparse(d) for d in node.decorator_list]
        names = [arg.arg for arg, _ in parameters]
        return tile.FuncOp(node.name, func_type, Region(block), names, decorators, defaults, annotations)

    def return_values(self, node: ast.expr) -> list[SSAValue]:
        elements = node.elts if isinstance(node, ast.Tuple) else [node]
        return [self.ctx.ssa(self.ctx.exprs.expr(e), e) for e in elements]

    def statements(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        outer, self.ctx.where = self.ctx.where, node
        try:
            self.statement_body(node)
        finally:
            self.ctx.where = outer

    def statement_body(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign):
            value = self.ctx.exprs.expr(node.value)
            for target in node.targets:
                self.assign(target, value, node.value)
        elif isinstance(node, ast.AnnAssign):
            if node.value is None:
                raise self.ctx.unsupported(node, "annotation without value")
            value = self.ctx.exprs.expr(node.value)
            if self.ctx.is_constexpr_annotation(node.annotation) and isinstance(node.target, ast.Name):
                # `HALF: tl.constexpr = BLOCK // 2`: Triton needs the annotation to use HALF as a
                # block size; a constexpr retype keeps it through the IR (the emitter writes it back).
                value = self.ctx.insert(tile.RetypeOp(self.ctx.ssa(value, node.value), tile.ConstexprType())).results[0]
            self.assign(node.target, value, node.value)
        elif isinstance(node, ast.AugAssign):
            if not isinstance(node.target, ast.Name):
                raise self.ctx.unsupported(node, "augmented assignment target")
            current = self.ctx.lookup(node.target.id, node.target)
            result = self.ctx.exprs.binary(node.op, current, self.ctx.exprs.expr(node.value), node)
            self.assign(node.target, result, node)
        elif isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant):
                return  # a string used as a comment
            self.ctx.exprs.expr(node.value, statement=True)
        elif isinstance(node, (ast.For, ast.While)):
            self.for_loop(node) if isinstance(node, ast.For) else self.while_loop(node)
        elif isinstance(node, ast.If):
            self.if_statement(node)
        elif isinstance(node, ast.Pass):
            return
        elif isinstance(node, ast.Return):
            raise self.ctx.error(node, "unsupported `return` before the end of the function (early exit)")
        elif isinstance(node, ast.With) and any(self._tlx(item.context_expr) for item in node.items):
            raise self.ctx.error(node, f"`{ast.unparse(node.items[0].context_expr)}`: {TLX_REFUSAL}")
        else:
            raise self.ctx.unsupported(node, f"statement ({type(node).__name__})")

    def _tlx(self, node: ast.expr) -> bool:
        """``node`` calls (or is) something of TLX, whatever its import's spelling."""
        func = node.func if isinstance(node, ast.Call) else node
        path = self.ctx.callee_path(func, required=False) if isinstance(func, (ast.Name, ast.Attribute)) else None
        return path is not None and is_tlx(path)

    def assign(self, target: ast.expr, value: Value | list[Value], value_node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, list):
                raise self.ctx.error(target, f"cannot assign {len(value)} values to `{target.id}`")
            if isinstance(value, SSAValue):
                self.ctx.named(value, target.id)
            elif isinstance(value, BlockPointer):
                for d, offset in enumerate(value.offsets):
                    self.ctx.named(offset, f"{target.id}_off{d}")
            self.ctx.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value if isinstance(value, list) else None
            if values is None or len(values) != len(target.elts):
                raise self.ctx.unsupported(target, "tuple assignment (right side must have as many values)")
            for element, element_value in zip(target.elts, values):
                self.assign(element, element_value, value_node)
        else:
            raise self.ctx.unsupported(target, "assignment target")

    def carried_names(self, statements: list[ast.stmt]) -> list[str]:
        return [n for n in _assigned_names(statements) if isinstance(self.ctx.env.get(n), (SSAValue, BlockPointer))]

    def carry_slots(self, names: list[str], whole: set[str]) -> list[Slot]:
        """The values a loop carries for ``names``: a block pointer carries
        its offsets (its tensor and block shape cannot change in the loop),
        an index block its start (ir/frontend/block_starts.py) unless it is
        in ``whole``."""
        slots: list[Slot] = []
        for name in names:
            value = self.ctx.env[name]
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
            block_starts.start_form(self.ctx.env[name]), block_starts.start_form(entry[name]))}

    def slot_value(self, slot: Slot, entry: dict[str, Value], node: ast.AST) -> SSAValue:
        name, dim = slot
        value = self.ctx.env[name]
        if dim is None:
            block_pointers.reject_in_value(self.ctx, value, node)
            return self.ctx.ssa(value, node)
        if dim == START:
            return block_starts.start_of(self.ctx, block_starts.start_form(value), node)  # type: ignore[arg-type]
        if not isinstance(value, BlockPointer) or not value.same_block(entry[name]):  # type: ignore[arg-type]
            raise self.ctx.error(node, f"block pointer `{name}` is replaced in this loop by "
                                   f"{'another tensor or block shape' if isinstance(value, BlockPointer) else 'a value'}; "
                                   "move it with `tl.advance` instead")
        return value.offsets[dim]  # type: ignore[index]

    def bind_slots(self, slots: list[Slot], values: list[SSAValue], entry: dict[str, Value], at: ast.AST) -> None:
        offsets: dict[str, dict[int, SSAValue]] = {}
        for (name, dim), value in zip(slots, values):
            if dim is None:
                value.name_hint = name
                self.ctx.env[name] = value
            elif dim == START:
                value.name_hint = f"{name}_start"
                extent = block_starts.start_form(entry[name]).extent  # type: ignore[union-attr]
                self.ctx.env[name] = self.ctx.named(block_starts.rebuild(self.ctx, value, extent, at), name)
            else:
                value.name_hint = f"{name}_off{dim}"
                offsets.setdefault(name, {})[dim] = value  # type: ignore[index]
        for name, dims in offsets.items():
            pointer = entry[name]
            assert isinstance(pointer, BlockPointer)
            # a dim the loop does not advance keeps its offset from before the loop
            self.ctx.env[name] = replace(pointer, offsets=tuple(dims.get(d, o) for d, o in enumerate(pointer.offsets)))

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

    def loop_bounds(self, node: ast.For) -> tuple[str, list[SSAValue], dict[str, Attribute]]:
        call = node.iter
        if not isinstance(call, ast.Call):
            raise self.ctx.unsupported(node.iter, "loop iterable (only range, tl.range, tl.static_range)")
        kind = self.ctx.callee_path(call.func)
        if kind not in LOOP_KINDS:
            raise self.ctx.unsupported(node.iter, "loop iterable (only range, tl.range, tl.static_range)")
        args = [self.ctx.ssa(self.ctx.exprs.expr(a), a) for a in call.args]
        if not 1 <= len(args) <= 3:
            raise self.ctx.unsupported(call, "range() arity")
        if len(args) == 1:
            args = [self.ctx.constant(0, call), args[0]]
        if len(args) == 2:
            args.append(self.ctx.constant(1, call))
        options: dict[str, Attribute] = {}
        for keyword in call.keywords:
            literal = self.ctx.option_literal(keyword.value)
            if literal is None:
                raise self.ctx.unsupported(keyword.value, f"`{keyword.arg}=` option of {kind} (a literal or constexpr parameter)")
            options[keyword.arg or ""] = literal
        return kind, [self.ctx.as_int(a) for a in args], options

    def for_loop(self, node: ast.For) -> None:
        if node.orelse:
            raise self.ctx.unsupported(node, "for ... else")
        if not isinstance(node.target, ast.Name):
            raise self.ctx.unsupported(node.target, "loop target (only a single name)")
        kind, (lb, ub, step), options = self.loop_bounds(node)
        carried = [n for n in self.carried_names(node.body) if n != node.target.id]
        entry = {name: self.ctx.env[name] for name in carried}
        whole: set[str] = set()
        slots = self.carry_slots(carried, whole)
        forced_any: set[Slot] = set()
        while True:
            inits = [self.carry_init(slot, forced_any, entry, node) for slot in slots]
            block = Block(arg_types=[i32, *(v.type for v in inits)])
            block.args[0].name_hint = node.target.id
            with self.ctx.in_block(block):
                self.ctx.env[node.target.id] = block.args[0]
                self.bind_slots(slots, list(block.args[1:]), entry, node)
                self.statements(node.body)
                lost = self.lost_starts(slots, entry)
                yielded = [] if lost else [self.slot_value(slot, entry, node) for slot in slots]
            retry = self.next_slots(carried, slots, whole, forced_any, lost, inits, list(block.args[1:]), yielded)
            if retry is None:
                break
            self.discard(block, inits)
            slots = retry
        with self.ctx.in_block(block):
            self.ctx.insert(scf.YieldOp(*yielded))
        loop = scf.ForOp(lb, ub, step, inits, Region(block))
        if kind != "range":
            loop.attributes["tile.loop"] = StringAttr(kind.rsplit(".", 1)[-1])
        for key, value in options.items():
            loop.attributes[f"tile.{key}"] = value
        self.ctx.insert(loop)
        self.bind_slots(slots, list(loop.results), entry, node)

    def carry_init(self, slot: Slot, forced_any: set[Slot], entry: dict[str, Value], at: ast.AST) -> SSAValue:
        name, dim = slot
        if dim == START:
            value = block_starts.start_of(self.ctx, block_starts.start_form(entry[name]), at)  # type: ignore[arg-type]
        else:
            value = entry[name].offsets[dim] if dim is not None else entry[name]  # type: ignore[union-attr,index]
        assert isinstance(value, SSAValue)
        if slot in forced_any and not isinstance(value.type, tile.AnyValueType):
            return self.ctx.insert(tile.RetypeOp(value, T.ANY)).results[0]
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
            raise self.ctx.unsupported(node, "while ... else")
        carried = self.carried_names(node.body)
        entry = {name: self.ctx.env[name] for name in carried}
        whole: set[str] = set()
        slots = self.carry_slots(carried, whole)
        forced_any: set[Slot] = set()
        while True:
            inits = [self.carry_init(slot, forced_any, entry, node) for slot in slots]
            before = Block(arg_types=[v.type for v in inits])
            after = Block(arg_types=[v.type for v in inits])
            with self.ctx.in_block(before):
                self.bind_slots(slots, list(before.args), entry, node)
                condition = self.ctx.as_condition(self.ctx.ssa(self.ctx.exprs.expr(node.test), node.test))
                self.ctx.insert(scf.ConditionOp(condition, *before.args))
            with self.ctx.in_block(after):
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
        with self.ctx.in_block(after):
            self.ctx.insert(scf.YieldOp(*yielded))
        loop = scf.WhileOp(inits, [v.type for v in inits], Region(before), Region(after))
        self.ctx.insert(loop)
        self.bind_slots(slots, list(loop.results), entry, node)

    def if_statement(self, node: ast.If) -> None:
        test = self.ctx.ssa(self.ctx.exprs.expr(node.test), node.test)
        compile_time = _compile_time(test)
        condition = self.ctx.as_condition(test)
        before = dict(self.ctx.env)
        then_block, else_block = Block(), Block()
        with self.ctx.in_block(then_block):
            self.statements(node.body)
        then_env = self.ctx.body_env
        with self.ctx.in_block(else_block):
            self.statements(node.orelse)
        else_env = self.ctx.body_env
        if compile_time:  # a name one arm binds is read only under the same condition (see tile.undef)
            for env, other in ((then_env, else_env), (else_env, then_env)):
                for n in _assigned_names(node.body + node.orelse):
                    if n in other and n not in env and n not in before and isinstance(other[n], SSAValue):
                        env[n] = UNBOUND
        names = [n for n in _assigned_names(node.body + node.orelse) if n in then_env and n in else_env]
        names = [n for n in names if then_env[n] is not before.get(n) or else_env[n] is not before.get(n)]
        for name in names:
            if not all(isinstance(env[name], SSAValue) or env[name] is UNBOUND for env in (then_env, else_env)):
                raise self.ctx.error(node, f"`{name}` is bound to a compile-time object in a branch of this `if`")
        for env, other in ((then_env, else_env), (else_env, then_env)):
            block = then_block if env is then_env else else_block
            for name in names:
                if env[name] is UNBOUND:
                    with self.ctx.in_block(block):
                        env[name] = self.ctx.insert(tile.UndefOp(other[name].type)).results[0]
        # index blocks `start + tl.arange(0, B)` on both sides leave the `if` as their start
        starts = {n: block_starts.start_form(then_env[n]) for n in names}
        starts = {n: f for n, f in starts.items() if block_starts.same_form(f, block_starts.start_form(else_env[n]))}
        yielded: dict[Block, list[SSAValue]] = {}
        for block, env in ((then_block, then_env), (else_block, else_env)):
            with self.ctx.in_block(block):
                yielded[block] = [
                    block_starts.start_of(self.ctx, block_starts.start_form(env[n]), node)  # type: ignore[arg-type]
                    if n in starts else env[n] for n in names  # type: ignore[misc]
                ]
        result_types = [T.join(a.type, b.type) for a, b in zip(yielded[then_block], yielded[else_block])]
        for block in (then_block, else_block):
            with self.ctx.in_block(block):
                values = []
                for value, result_type in zip(yielded[block], result_types):
                    if value.type != result_type:
                        value = self.ctx.insert(tile.RetypeOp(value, result_type)).results[0]
                    values.append(value)
                self.ctx.insert(scf.YieldOp(*values))
        op = scf.IfOp(condition, result_types, Region(then_block), Region(else_block))
        self.ctx.insert(op)
        for name, result in zip(names, op.results):
            result.name_hint = f"{name}_start" if name in starts else name
            form = starts.get(name)
            self.ctx.env[name] = result if form is None else self.ctx.named(
                block_starts.rebuild(self.ctx, result, form.extent, node), name)
        for name in _assigned_names(node.body + node.orelse):
            if name not in names and name not in before:
                self.ctx.env.pop(name, None)  # bound in one branch only: not visible after the if
