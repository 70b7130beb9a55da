"""Emit readable Triton Python from a tile module.

Each `tile.func` becomes a decorated Python function with the original
parameter names, order, constexpr annotations and defaults. SSA values take
the variable names the frontend recorded; a value without a name that is used
once, in the same block, by a pure op is inlined into its user's expression.
A name is reused for a new value only when the value it holds is never read
again (reads inside a loop count until the loop's end), otherwise a fresh
`name_1` is chosen, so the emitted code computes what the IR says even when
the IR was rewritten by passes. Regions that a pass inserted carry a
`tile.origin` attribute; the emitter writes it as a comment above the op.
"""

from __future__ import annotations

import ast
import keyword
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from syncopate.dialects import tile
from syncopate.dialects import python_grammar as grammar
from syncopate.ir.contract import ORIGIN_ATTR
from syncopate.ir.verify import verify_module
from syncopate.ir.frontend.type_rules import dtype_name
from syncopate.lowering.runtime_counts import table_counts, unspecialized

HEADER = "import triton\nimport triton.language as tl\n"

# Python precedence levels (higher binds tighter).
PREC = {"or": 1, "and": 2, "not ": 3, "cmp": 4, "|": 5, "^": 6, "&": 7, "<<": 8, ">>": 8, "+": 9, "-": 9,
        "*": 10, "/": 10, "//": 10, "%": 10, "unary": 11, "atom": 100}  # fmt: skip


class EmitError(Exception):
    """The IR holds something that has no Triton spelling."""


EMITTED_NAMES = frozenset({"tl", "triton", "range", "float", "min", "max"})
"""Module-level names the emitted code itself refers to (``for i in range``,
``float('inf')``, a ``min``/``max`` call): never a local variable's name."""


def emit_module(module: ModuleOp) -> str:
    """The whole module as one self-contained Python file.

    The module is verified first: the tile dialect's verifiers check the
    Python that properties hold as text (callees, decorators, defaults,
    names) and that every value is defined before its uses, so only IR that
    means one Python program is printed. The result is parsed once more:
    text that is not Python is an :class:`EmitError`, never a file."""
    verify_module(module)
    funcs = [op for op in module.ops if isinstance(op, tile.FuncOp)]
    others = [op.name for op in module.ops if not isinstance(op, tile.FuncOp) and op.name != "chunk.plan"]
    if others:
        raise EmitError(f"cannot emit top-level op(s) {', '.join(sorted(set(others)))} as Triton")
    unlowered = sorted({op.name for f in funcs for op in f.walk() if op.name.startswith("chunk.")})
    if unlowered:
        raise EmitError(f"the kernel still holds {', '.join(unlowered)}, which only lower-chunk-to-tile turns into "
                        "Triton: end the pipeline with it (the overlap pipeline does), e.g. "
                        "-p 'chunk-dependency-analysis,insert-signals,lower-chunk-to-tile' -t triton")
    reserved = set(EMITTED_NAMES) | {f.sym_name.data for f in funcs}
    parts = [HEADER]
    prelude, scope = prelude_source(module)
    if prelude:
        # module-level Python the kernels' decorators and defaults use (ir/frontend/prelude.py)
        parts.append("\n" + prelude + "\n")
    for func in funcs:
        parts.append("\n\n" + FunctionEmitter(func, reserved, scope).emit())
    text = "".join(parts)
    try:
        ast.parse(text)
    except SyntaxError as err:
        raise EmitError(f"the emitted Python does not parse ({err.msg}, line {err.lineno}: {err.text!r})") from None
    return text


def prelude_source(module: ModuleOp) -> tuple[str, grammar.Scope]:
    """The module's prelude as Python source, and the names it binds.

    With :func:`fragment_source` the one place where module-level text of the
    IR becomes Python: the prelude is written only when every statement is of
    the grammar of ``dialects/python_grammar.py``, whoever made the IR."""
    try:
        scope = grammar.module_scope(module)
    except VerifyException as err:
        raise EmitError(str(err)) from None
    prelude = module.attributes.get(grammar.PRELUDE_ATTR)
    return (prelude.data if isinstance(prelude, StringAttr) else ""), scope


def fragment_source(what: str, text: str, scope: grammar.Scope) -> str:
    """``text`` (a decorator, default or annotation) as Python source, once it
    is one allowed expression in ``scope`` (``dialects/python_grammar.py``)."""
    try:
        grammar.check_expression(what, text, scope)
    except VerifyException as err:
        raise EmitError(str(err)) from None
    return text


def dtype_text(type_: Attribute) -> str:
    name = dtype_name(type_)
    if name is None:
        raise EmitError(f"no Triton dtype for {type_}")
    return f"tl.{name}"


def literal_text(attr: Attribute) -> str:
    if isinstance(attr, StringAttr):
        return repr(attr.data)
    if isinstance(attr, NoneAttr):
        return "None"
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            return "True" if value else "False"
        return str(value)
    if isinstance(attr, FloatAttr):
        return float_text(attr.value.data, single=isinstance(attr.type, Float32Type))
    if isinstance(attr, ArrayAttr):
        return "[" + ", ".join(literal_text(a) for a in attr.data) + "]"
    return dtype_text(attr)


def option_text(attr: Attribute) -> str:
    """A call or loop option: a literal, or `@NAME` for a constexpr parameter."""
    if isinstance(attr, SymbolRefAttr):
        return attr.root_reference.data
    return literal_text(attr)


TL_RANGE_OPTIONS = ("num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer", "flatten", "warp_specialize",
                    "disable_licm")
"""Keyword options of ``tl.range`` (Triton 3.6): a ``tile.<option>`` loop attribute becomes ``option=value``."""

LOOP_BOOKKEEPING = ("tile.loop", ORIGIN_ATTR)
"""``tile.*`` loop attributes that are not ``tl.range`` options (the loop kind, the pass that made it)."""


LOOP_KINDS = {"range": "tl.range", "static_range": "tl.static_range"}
"""``tile.loop`` values: the Triton iterator of a loop (a plain ``range`` has none)."""


def loop_iterator(loop: scf.ForOp, kernel: str) -> str:
    """``range``, or the ``tl.*`` iterator the ``tile.loop`` attribute names;
    any other value is refused rather than emitted as a plain ``range``."""
    kind = loop.attributes.get("tile.loop")
    if kind is None:
        return "range"
    if not isinstance(kind, StringAttr) or kind.data not in LOOP_KINDS:
        raise EmitError(f"{kernel}: loop attribute tile.loop = {kind} is not one of {', '.join(LOOP_KINDS)}")
    return LOOP_KINDS[kind.data]


def loop_options(loop: scf.ForOp, callee: str, kernel: str, params: Iterable[str] = ()) -> list[tuple[str, Attribute]]:
    """The ``tl.range`` keywords of ``loop``, in attribute order; an option
    given as ``@NAME`` must name one of ``params``.

    Only ``tile.<option>`` attributes with ``option`` in :data:`TL_RANGE_OPTIONS`
    become keywords. Attributes of other namespaces (``chunk.*``, a pass's own
    tags) are not loop options and are ignored. Any other ``tile.*`` attribute,
    or an option on a loop that is not ``tl.range``, is refused: emitting it
    would make Triton reject the kernel, and dropping it would silently lose
    what the attribute asked for."""
    options = []
    for key, value in loop.attributes.items():
        if not key.startswith("tile.") or key in LOOP_BOOKKEEPING:
            continue
        name = key.removeprefix("tile.")
        if name not in TL_RANGE_OPTIONS:
            raise EmitError(
                f"{kernel}: loop attribute '{key}' is not a tl.range option "
                f"(known: {', '.join(TL_RANGE_OPTIONS)})"
            )
        if callee != "tl.range":
            raise EmitError(f"{kernel}: loop option '{name}' needs tl.range, but the loop is {callee}")
        if isinstance(value, SymbolRefAttr) and (value.nested_references.data or value.root_reference.data not in params):
            raise EmitError(f"{kernel}: loop option '{name}' = {value} names no parameter of the kernel")
        options.append((name, value))
    return options


def float_text(value: float, single: bool = False) -> str:
    """Python spelling of a float; f32 values get the shortest f32 round-trip form."""
    if math.isinf(value):
        return "float('inf')" if value > 0 else "float('-inf')"
    if math.isnan(value):
        return "float('nan')"
    if single:
        import numpy  # only f32 literals need it; the emitter starts faster without

        text = str(numpy.float32(value))
        return text if any(c in text for c in ".en") else text + ".0"
    return repr(value)


@dataclass
class Expr:
    text: str
    prec: int = PREC["atom"]


ExprRule = Callable[["FunctionEmitter", Any], "Expr"]
StatementRule = Callable[["FunctionEmitter", Any, int], None]

EXPRESSIONS: dict[type[Operation], ExprRule] = {}
"""Op class -> the FunctionEmitter method that prints an op of it as a
Triton expression. A class without an entry takes its nearest base class's
(``tile.BinaryOp``'s rule prints every binary operator)."""

STATEMENTS: dict[type[Operation], StatementRule] = {}
"""Op class -> the FunctionEmitter method that writes an op of it as
statements of its own (stores, returns, loops, branches); every other op is
an assignment of its expression, or an expression statement."""


def expression_rule(*classes: type[Operation]) -> Callable[[ExprRule], ExprRule]:
    """Register the decorated method as the expression rule of ``classes``."""

    def register(rule: ExprRule) -> ExprRule:
        for cls in classes:
            EXPRESSIONS[cls] = rule
        return rule

    return register


def statement_rule(*classes: type[Operation]) -> Callable[[StatementRule], StatementRule]:
    """Register the decorated method as the statement rule of ``classes``."""

    def register(rule: StatementRule) -> StatementRule:
        for cls in classes:
            STATEMENTS[cls] = rule
        return rule

    return register


def rule_for(table: dict[type[Operation], Any], op_class: type[Operation]) -> Any:
    """The rule ``table`` holds for ``op_class`` or its nearest base class, or None."""
    return next((table[cls] for cls in op_class.__mro__ if cls in table), None)


@dataclass
class FunctionEmitter:
    func: tile.FuncOp
    reserved: set[str]
    scope: grammar.Scope = grammar.EMPTY_SCOPE
    lines: list[str] = field(default_factory=list)
    names: dict[SSAValue, str] = field(default_factory=dict)
    holders: dict[str, SSAValue | None] = field(default_factory=dict)
    position: dict[Operation, int] = field(default_factory=dict)
    end: dict[Operation, int] = field(default_factory=dict)
    inlined: set[Operation] = field(default_factory=set)
    last_use: dict[SSAValue, int] = field(default_factory=dict)

    # -- analysis ------------------------------------------------------------

    def number_ops(self) -> None:
        counter = 0

        def visit(op: Operation) -> None:
            nonlocal counter
            self.position[op] = counter
            counter += 1
            for region in op.regions:
                for block in region.blocks:
                    for child in block.ops:
                        visit(child)
            self.end[op] = counter
            counter += 1

        for op in self.func.body.block.ops:
            visit(op)

    def is_transparent(self, op: Operation) -> bool:
        return isinstance(op, tile.RetypeOp) and not _is_local_constexpr(op)

    def is_conditional_expression(self, op: Operation) -> bool:
        """An ``scf.if`` that is the user's ``a if c else b`` on compile-time
        values (``BLOCK_N // 2 if SUBTILE else BLOCK_N``): one result, a
        condition of constexprs and literals alone, and arms that are
        expressions. It is written back as that expression: as an ``if``
        statement assigning a temporary, the value would stop being a
        constexpr, and a block shape or ``tl.arange`` bound that reads it
        would fail in Triton."""
        if not isinstance(op, scf.IfOp) or len(op.results) != 1 or not op.false_region.blocks:
            return False
        if not _compile_time(op.cond):
            return False
        for region in (op.true_region, op.false_region):
            *ops, end = region.block.ops
            if not isinstance(end, scf.YieldOp) or not all(self.is_inlinable(o) for o in ops):
                return False
        return True

    def is_inlinable(self, op: Operation) -> bool:
        if isinstance(op, scf.IfOp) and self.is_conditional_expression(op):
            result = op.results[0]
            return result.name_hint is None and result.uses.get_length() == 1 \
                and next(iter(result.uses)).operation.parent_block() is op.parent_block()
        if len(op.results) != 1 or isinstance(op, (scf.ForOp, scf.IfOp, scf.WhileOp)):
            return False
        result = op.results[0]
        if self.is_transparent(op):
            return True
        if isinstance(op, (arith.ConstantOp, tile.LiteralOp)):
            return True
        if (isinstance(op, tile.DescriptorBlockSizeOp) and result.name_hint is None
                and isinstance(op.desc, BlockArgument) and op.desc.owner is self.func.body.block):
            # `desc.block_shape[d]` of a parameter, unnamed (added by the analysis, or the value of a
            # local constexpr): a constexpr wherever it is written, whereas a temporary would lose that
            return True
        if result.name_hint is None and self.is_constexpr_arith(op):
            # written at each use: bound to a temporary it would be an int, not a constexpr, in Triton's
            # interpreter (`tmp = BLOCK // 2; tl.arange(0, tmp)` fails there where `tl.arange(0, BLOCK // 2)` runs)
            return True
        pure = op.has_trait(Pure) or (isinstance(op, tile.CallOp) and op.is_pure)
        if not pure or result.name_hint is not None or result.uses.get_length() != 1:
            return False
        user = next(iter(result.uses)).operation
        return user.parent_block() is op.parent_block()

    def is_constexpr_arith(self, op: Operation) -> bool:
        """``op`` is integer arithmetic of the kernel's constexpr parameters
        and integer constants only (``BLOCK_M // 2``), through unnamed
        intermediate results."""
        todo, seen = [op], set()
        while todo:
            current = todo.pop()
            if not isinstance(current, _CONSTEXPR_ARITH) or current in seen:
                return False
            seen.add(current)
            for operand in current.operands:
                if isinstance(operand, BlockArgument):
                    if operand.owner is not self.func.body.block or not isinstance(operand.type, tile.ConstexprType):
                        return False
                elif isinstance(operand.owner, arith.ConstantOp):
                    if not isinstance(operand.owner.value, IntegerAttr):
                        return False
                elif operand.name_hint is None:
                    todo.append(operand.owner)
                else:
                    return False
        return True

    def statement_of(self, op: Operation) -> Operation:
        while op in self.inlined:
            uses = op.results[0].uses
            if not uses:
                return op
            op = min((u.operation for u in uses), key=lambda o: self.position[o])
        return op

    def compute_liveness(self) -> None:
        for op in self.func.walk():
            if op is not self.func and self.is_inlinable(op):
                self.inlined.add(op)
        values: list[SSAValue] = list(self.func.body.block.args)
        for op in self.func.walk():
            values.extend(op.results)
            for region in op.regions:
                for block in region.blocks:
                    values.extend(block.args)
        for value in values:
            last = -1
            definer = value.owner.parent_op() if isinstance(value, BlockArgument) else value.owner
            for use in value.uses:
                user = self.statement_of(use.operation)
                point = self.position.get(user, -1)
                ancestor = user.parent_op()
                while ancestor is not None and ancestor is not self.func:
                    if isinstance(ancestor, (scf.ForOp, scf.WhileOp)) and not _is_ancestor(ancestor, definer):
                        point = max(point, self.end[ancestor])
                    ancestor = ancestor.parent_op()
                last = max(last, point)
            self.last_use[value] = last

    # -- names ---------------------------------------------------------------

    def bind(self, value: SSAValue, wanted: str | None, at: int) -> str:
        base = python_name(wanted) if wanted else "tmp"
        candidate, suffix = base, 0
        while True:
            holder = self.holders.get(candidate)
            free = candidate not in self.reserved and (
                candidate not in self.holders
                or holder is value
                or holder is None
                or self.last_use.get(holder, -1) <= at
            )
            if wanted is None:
                free = free and candidate not in self.holders
            if free:
                break
            suffix += 1
            candidate = f"{base}_{suffix}"
        self.holders[candidate] = value
        self.names[value] = candidate
        return candidate

    # -- emission --------------------------------------------------------------

    def emit(self) -> str:
        self.number_ops()
        self.compute_liveness()
        func = self.func
        params = []
        defaults = func.defaults.data if func.defaults is not None else {}
        annotations = func.arg_annotations.data if func.arg_annotations is not None else {}
        for arg, name in zip(func.body.block.args, func.arg_names):
            self.names[arg] = name
            self.holders[name] = arg
            text = name
            if isinstance(arg.type, tile.ConstexprType):
                text += ": tl.constexpr"
            elif name in annotations:
                text += f": {self.fragment(f'annotation of {name!r}', annotations[name].data)}"
            if name in defaults:
                default = defaults[name]
                value = self.fragment(f"default of {name!r}", default.data) if isinstance(default, StringAttr) else None
                text += f" = {value if value is not None else literal_text(default)}"
            params.append(text)
        decorators = [d.data for d in func.decorators.data] if func.decorators is not None else ["triton.jit"]
        decorators = unspecialized(decorators, table_counts(func))
        header = [f"@{self.fragment('decorator', d)}" for d in decorators]
        header.append(f"def {func.sym_name.data}({', '.join(params)}):")
        self.block(func.body.block, 1)
        body = self.lines or ["    pass"]
        return "\n".join(header + body) + "\n"

    def fragment(self, label: str, text: str) -> str:
        """A decorator, default or annotation of this function, checked (:func:`fragment_source`)."""
        what = grammar.fragment_what(f"tile.func @{self.func.sym_name.data}", label, text)
        return fragment_source(what, text, self.scope)

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def block(self, block: Block, depth: int) -> None:
        start = len(self.lines)
        for op in block.ops:
            self.op(op, depth)
        if len(self.lines) == start:
            self.line(depth, "pass")

    def expr(self, value: SSAValue) -> Expr:
        if value in self.names:
            return Expr(self.names[value])
        owner = value.owner
        if isinstance(owner, Operation) and owner in self.inlined:
            return self.op_expr(owner)
        raise EmitError(f"value {value} used before it was emitted")

    def wrap(self, value: SSAValue, minimum: int) -> str:
        e = self.expr(value)
        return f"({e.text})" if e.prec < minimum else e.text

    def args_text(self, values: Iterable[SSAValue]) -> str:
        return ", ".join(self.expr(v).text for v in values)

    def kwargs_text(self, attrs: DictionaryAttr | None) -> list[str]:
        if attrs is None:
            return []
        return [f"{k}={option_text(v)}" for k, v in attrs.data.items()]

    def call_text(self, callee: str, positional: list[str], keywords: list[str]) -> Expr:
        return Expr(f"{callee}({', '.join(positional + keywords)})")

    def op_expr(self, op: Operation) -> Expr:
        """``op`` as a Triton expression, by its class's rule in :data:`EXPRESSIONS`."""
        rule = rule_for(EXPRESSIONS, type(op))
        if rule is None:
            raise EmitError(f"{op.name} has no Triton expression")
        return rule(self, op)

    # -- expressions, one rule per op class ------------------------------------

    @expression_rule(arith.ConstantOp, tile.LiteralOp)
    def literal_expr(self, op: arith.ConstantOp | tile.LiteralOp) -> Expr:
        return Expr(literal_text(op.value))

    @expression_rule(tile.RetypeOp)
    def retype_expr(self, op: tile.RetypeOp) -> Expr:
        return self.expr(op.src)

    @expression_rule(tile.BinaryOp)
    def binary_expr(self, op: tile.BinaryOp) -> Expr:
        p = PREC[op.PYTHON_OPERATOR]
        return Expr(f"{self.wrap(op.lhs, p)} {op.PYTHON_OPERATOR} {self.wrap(op.rhs, p + 1)}", p)

    @expression_rule(tile.AddPtrOp)
    def add_ptr_expr(self, op: tile.AddPtrOp) -> Expr:
        p = PREC["+"]
        return Expr(f"{self.wrap(op.ptr, p)} + {self.wrap(op.offset, p + 1)}", p)

    @expression_rule(tile.CmpOp)
    def cmp_expr(self, op: tile.CmpOp) -> Expr:
        p = PREC["cmp"]
        symbol = tile.CMP_PREDICATES[op.predicate.data]
        return Expr(f"{self.wrap(op.lhs, p + 1)} {symbol} {self.wrap(op.rhs, p + 1)}", p)

    @expression_rule(tile.UnaryOp)
    def unary_expr(self, op: tile.UnaryOp) -> Expr:
        p = PREC["not "] if isinstance(op, tile.NotOp) else PREC["unary"]
        return Expr(f"{op.PYTHON_OPERATOR}{self.wrap(op.src, p)}", p)

    @expression_rule(tile.ProgramIdOp)
    def program_id_expr(self, op: tile.ProgramIdOp) -> Expr:
        return Expr(f"tl.program_id(axis={op.axis.value.data})")

    @expression_rule(tile.NumProgramsOp)
    def num_programs_expr(self, op: tile.NumProgramsOp) -> Expr:
        return Expr(f"tl.num_programs(axis={op.axis.value.data})")

    @expression_rule(tile.ArangeOp)
    def arange_expr(self, op: tile.ArangeOp) -> Expr:
        return Expr(f"tl.arange({self.args_text([op.start, op.end])})")

    @expression_rule(tile.ExpandDimsOp)
    def expand_dims_expr(self, op: tile.ExpandDimsOp) -> Expr:
        rank = tile.rank_of(op.src.type)
        axis = op.axis.value.data
        if rank is None:
            return Expr(f"tl.expand_dims({self.expr(op.src).text}, {axis})")
        axis = axis if axis >= 0 else rank + 1 + axis
        index = [":"] * (rank + 1)
        index[axis] = "None"
        return Expr(f"{self.wrap(op.src, PREC['atom'])}[{', '.join(index)}]")

    @expression_rule(tile.BroadcastOp)
    def broadcast_expr(self, op: tile.BroadcastOp) -> Expr:
        return Expr(f"tl.broadcast_to({self.expr(op.src).text}, {self.shape_text(op.shape)})")

    @expression_rule(tile.SplatOp)
    def splat_expr(self, op: tile.SplatOp) -> Expr:
        return Expr(f"tl.full({self.shape_text(op.shape)}, {self.expr(op.value).text}, dtype={dtype_text(op.dtype)})")

    @expression_rule(tile.ZerosOp)
    def zeros_expr(self, op: tile.ZerosOp) -> Expr:
        return Expr(f"tl.zeros({self.shape_text(op.shape)}, dtype={dtype_text(op.dtype)})")

    @expression_rule(tile.CdivOp)
    def cdiv_expr(self, op: tile.CdivOp) -> Expr:
        return Expr(f"tl.cdiv({self.args_text([op.lhs, op.rhs])})")

    @expression_rule(tile.WhereOp)
    def where_expr(self, op: tile.WhereOp) -> Expr:
        return Expr(f"tl.where({self.args_text([op.cond, op.true_value, op.false_value])})")

    @expression_rule(tile.CastOp)
    def cast_expr(self, op: tile.CastOp) -> Expr:
        extra = ", bitcast=True" if op.bitcast is not None and op.bitcast.value.data else ""
        return Expr(f"{self.wrap(op.src, PREC['atom'])}.to({dtype_text(op.dtype)}{extra})")

    @expression_rule(tile.AttrOp)
    def attr_expr(self, op: tile.AttrOp) -> Expr:
        return Expr(f"{self.wrap(op.src, PREC['atom'])}.{op.path.data}")

    @expression_rule(tile.TupleOp)
    def tuple_expr(self, op: tile.TupleOp) -> Expr:
        items = self.args_text(op.elements)
        if op.brackets is not None:
            return Expr(f"[{items}]")
        return Expr(f"({items},)" if len(op.elements) == 1 else f"({items})")

    @expression_rule(tile.TransOp)
    def trans_expr(self, op: tile.TransOp) -> Expr:
        return Expr(f"tl.trans({self.expr(op.src).text})")

    @expression_rule(tile.SplitOp)
    def split_expr(self, op: tile.SplitOp) -> Expr:
        return Expr(f"tl.split({self.expr(op.src).text})")

    @expression_rule(tile.ReduceOp)
    def reduce_expr(self, op: tile.ReduceOp) -> Expr:
        keywords = []
        if op.axis is not None:
            keywords.append(f"axis={op.axis.value.data}")
        if op.keep_dims is not None:
            keywords.append(f"keep_dims={literal_text(op.keep_dims)}")
        return self.call_text(f"tl.{op.kind.data}", [self.expr(op.src).text], keywords)

    @expression_rule(tile.DotOp)
    def dot_expr(self, op: tile.DotOp) -> Expr:
        operands = [op.a, op.b] + ([op.acc] if op.acc is not None else [])
        return self.call_text("tl.dot", [self.expr(v).text for v in operands], self.kwargs_text(op.static_kwargs))

    @expression_rule(tile.LoadOp)
    def load_expr(self, op: tile.LoadOp) -> Expr:
        keywords = []
        if op.mask is not None:
            keywords.append(f"mask={self.expr(op.mask).text}")
        if op.other is not None:
            keywords.append(f"other={self.expr(op.other).text}")
        return self.call_text("tl.load", [self.expr(op.ptr).text], keywords + self.kwargs_text(op.static_kwargs))

    @expression_rule(tile.AtomicRMWOp)
    def atomic_rmw_expr(self, op: tile.AtomicRMWOp) -> Expr:
        keywords = [f"mask={self.expr(op.mask).text}"] if op.mask is not None else []
        keywords += [f"{k}={literal_text(v)}" for k, v in (("sem", op.sem), ("scope", op.scope)) if v is not None]
        return self.call_text(f"tl.atomic_{op.kind.data}", [self.args_text([op.ptr, op.value])], keywords)

    @expression_rule(tile.AtomicCASOp)
    def atomic_cas_expr(self, op: tile.AtomicCASOp) -> Expr:
        keywords = [f"{k}={literal_text(v)}" for k, v in (("sem", op.sem), ("scope", op.scope)) if v is not None]
        return self.call_text("tl.atomic_cas", [self.args_text([op.ptr, op.cmp, op.value])], keywords)

    @expression_rule(tile.MakeTensorDescriptorOp)
    def make_descriptor_expr(self, op: tile.MakeTensorDescriptorOp) -> Expr:
        keywords = [
            f"shape={self.list_text(op.shape)}",
            f"strides={self.list_text(op.strides)}",
            f"block_shape={self.list_text(op.block_shape)}",
        ]
        return self.call_text("tl.make_tensor_descriptor", [self.expr(op.base).text], keywords)

    @expression_rule(tile.DescriptorLoadOp)
    def descriptor_load_expr(self, op: tile.DescriptorLoadOp) -> Expr:
        return Expr(f"{self.wrap(op.desc, PREC['atom'])}.load({self.list_text(op.offsets)})")

    @expression_rule(tile.DescriptorBlockSizeOp)
    def descriptor_block_size_expr(self, op: tile.DescriptorBlockSizeOp) -> Expr:
        return Expr(f"{self.wrap(op.desc, PREC['atom'])}.block_shape[{op.dim.value.data}]")

    @expression_rule(tile.CallJitOp)
    def call_jit_expr(self, op: tile.CallJitOp) -> Expr:
        return self.call_text(op.callee.root_reference.data, [self.args_text(op.arguments)], [])

    def shape_text(self, values: Iterable[SSAValue]) -> str:
        items = [self.expr(v).text for v in values]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"

    def list_text(self, values: Iterable[SSAValue]) -> str:
        return f"[{self.args_text(values)}]"

    @expression_rule(tile.CallOp)
    def builtin_call(self, op: tile.CallOp) -> Expr:
        names = op.keyword_names
        positional = list(op.arguments)[: op.num_positional]
        keyword_values = list(op.arguments)[op.num_positional :]
        keywords = [f"{k}={self.expr(v).text}" for k, v in zip(names, keyword_values)]
        keywords += self.kwargs_text(op.static_kwargs)
        callee = op.callee.data
        if callee.startswith("."):
            base, rest = positional[0], positional[1:]
            return self.call_text(f"{self.wrap(base, PREC['atom'])}{callee}", [self.expr(v).text for v in rest], keywords)
        return self.call_text(callee, [self.expr(v).text for v in positional], keywords)

    # -- statements ----------------------------------------------------------

    def op(self, op: Operation, depth: int) -> None:
        """Write ``op``: by its class's rule in :data:`STATEMENTS`, else as an
        assignment of its expression (nothing for an op inlined into its user)."""
        if op in self.inlined:
            return
        origin = op.attributes.get(ORIGIN_ATTR)
        if isinstance(origin, StringAttr):
            self.line(depth, f"# inserted by {comment_text(origin.data)}")
        rule = rule_for(STATEMENTS, type(op))
        if rule is not None:
            rule(self, op, depth)
        else:
            self.assignment(op, depth)

    def assignment(self, op: Operation, depth: int) -> None:
        """``targets = expression``, or the bare expression of an op whose
        results nobody reads (dropped where the op is pure)."""
        at = self.position[op]
        text = self.op_expr(op).text
        if not op.results:
            self.line(depth, text)
            return
        if len(op.results) == 1 and not op.results[0].uses and op.results[0].name_hint is None:
            if not op.has_trait(Pure):
                self.line(depth, text)
            return
        targets = [self.bind(r, r.name_hint, at) for r in op.results]
        if _is_local_constexpr(op):
            self.line(depth, f"{targets[0]}: tl.constexpr = {text}")
            return
        self.line(depth, f"{', '.join(targets)} = {text}")

    @statement_rule(tile.ReturnOp)
    def return_statement(self, op: tile.ReturnOp, depth: int) -> None:
        if op.values:
            self.line(depth, f"return {self.args_text(op.values)}")

    @statement_rule(tile.StoreOp)
    def store_statement(self, op: tile.StoreOp, depth: int) -> None:
        keywords = [f"mask={self.expr(op.mask).text}"] if op.mask is not None else []
        keywords += self.kwargs_text(op.static_kwargs)
        self.line(depth, self.call_text("tl.store", [self.args_text([op.ptr, op.value])], keywords).text)

    @statement_rule(tile.DescriptorStoreOp)
    def descriptor_store_statement(self, op: tile.DescriptorStoreOp, depth: int) -> None:
        self.line(depth, f"{self.wrap(op.desc, PREC['atom'])}.store({self.list_text(op.offsets)}, {self.expr(op.value).text})")

    @statement_rule(tile.DescriptorAtomicOp)
    def descriptor_atomic_statement(self, op: tile.DescriptorAtomicOp, depth: int) -> None:
        desc = self.wrap(op.desc, PREC['atom'])
        self.line(depth, f"{desc}.atomic_{op.kind.data}({self.list_text(op.offsets)}, {self.expr(op.value).text})")

    @statement_rule(scf.YieldOp, scf.ConditionOp)
    def stray_terminator(self, op: Operation, depth: int) -> None:
        raise EmitError(f"{op.name} outside of the region it terminates")

    def assign_copies(self, depth: int, targets: list[str], values: list[SSAValue]) -> None:
        # a tile.undef arm leaves its name unbound, as the source's constexpr `if` did
        kept = [(t, v) for t, v in zip(targets, values) if not isinstance(v.owner, tile.UndefOp)]
        pairs = [(t, self.expr(v).text) for t, v in kept if self.expr(v).text != t]
        if not pairs:
            return
        if len(pairs) == 1:
            self.line(depth, f"{pairs[0][0]} = {pairs[0][1]}")
        else:
            self.line(depth, f"{', '.join(t for t, _ in pairs)} = {', '.join(v for _, v in pairs)}")

    def bind_results(self, op: Operation, carried: list[str], depth: int) -> None:
        at = self.end[op]
        result_names = [self.bind(r, name, at) for r, name in zip(op.results, carried)]
        mismatched = [(n, c) for n, c in zip(result_names, carried) if n != c]
        for name, carried_name in mismatched:
            self.line(depth, f"{name} = {carried_name}")

    @statement_rule(scf.ForOp)
    def for_loop(self, op: scf.ForOp, depth: int) -> None:
        at = self.position[op]
        iv, *block_args = op.body.block.args
        init_texts = [self.expr(v).text for v in op.iter_args]
        carried = [self.bind(arg, arg.name_hint or init, at) for arg, init in zip(block_args, init_texts)]
        pairs = [(c, t) for c, t in zip(carried, init_texts) if c != t]
        if pairs:
            self.line(depth, f"{', '.join(c for c, _ in pairs)} = {', '.join(t for _, t in pairs)}")
        iv_name = self.bind(iv, iv.name_hint or "i", at)
        callee = loop_iterator(op, self.func.sym_name.data)
        bounds = [self.expr(op.lb).text, self.expr(op.ub).text, self.expr(op.step).text]
        if bounds[2] == "1":
            bounds.pop()
            if bounds[0] == "0" and callee == "range":
                bounds.pop(0)
        options = [f"{name}={option_text(value)}" for name, value in loop_options(op, callee, self.func.sym_name.data, self.func.arg_names)]
        self.line(depth, f"for {iv_name} in {callee}({', '.join(bounds + options)}):")
        self.body_with_yield(op.body.block, carried, depth + 1)
        self.bind_results(op, carried, depth)

    def body_with_yield(self, block: Block, targets: list[str], depth: int) -> None:
        start = len(self.lines)
        *ops, terminator = list(block.ops)
        for child in ops:
            self.op(child, depth)
        if isinstance(terminator, scf.YieldOp):
            self.assign_copies(depth, targets, list(terminator.arguments))
        if len(self.lines) == start:
            self.line(depth, "pass")

    @expression_rule(scf.IfOp)
    def conditional_expr(self, op: scf.IfOp) -> Expr:
        if not self.is_conditional_expression(op):
            raise EmitError("scf.if: only a one-result if on compile-time values is an expression")
        then, other = (region.block.last_op.arguments[0] for region in (op.true_region, op.false_region))
        # the lowest precedence: every use wraps it in parentheses
        return Expr(f"{self.wrap(then, PREC['or'])} if {self.wrap(op.cond, PREC['or'])} else "
                    f"{self.wrap(other, PREC['or'])}", prec=0)

    @statement_rule(scf.IfOp)
    def if_statement(self, op: scf.IfOp, depth: int) -> None:
        if self.is_conditional_expression(op):
            self.assignment(op, depth)  # `name = a if c else b`
            return
        at = self.end[op]
        condition = self.expr(op.cond).text
        targets = [self.bind(r, r.name_hint, at) for r in op.results]
        saved = dict(self.holders)
        self.line(depth, f"if {condition}:")
        self.body_with_yield(op.true_region.block, targets, depth + 1)
        then_holders = self.holders
        self.holders = dict(saved)
        else_block = op.false_region.blocks[0] if op.false_region.blocks else None
        if else_block is not None:
            start = len(self.lines)
            self.line(depth, "else:")
            self.body_with_yield(else_block, targets, depth + 1)
            if self.lines[start + 1 :] == ["    " * (depth + 1) + "pass"]:
                del self.lines[start:]
        for name in set(then_holders) | set(self.holders):
            if then_holders.get(name) is not self.holders.get(name):
                self.holders[name] = None  # assigned in a branch: what it holds now is unknown
        for target, result in zip(targets, op.results):
            self.holders[target] = result

    @statement_rule(scf.WhileOp)
    def while_loop(self, op: scf.WhileOp, depth: int) -> None:
        at = self.position[op]
        before, after = op.before_region.block, op.after_region.block
        init_texts = [self.expr(v).text for v in op.arguments]
        carried = [self.bind(arg, arg.name_hint or init, at) for arg, init in zip(before.args, init_texts)]
        pairs = [(c, t) for c, t in zip(carried, init_texts) if c != t]
        if pairs:
            self.line(depth, f"{', '.join(c for c, _ in pairs)} = {', '.join(t for _, t in pairs)}")
        *cond_ops, condition = list(before.ops)
        assert isinstance(condition, scf.ConditionOp)
        if list(condition.args) != list(before.args):
            raise EmitError("scf.while: the condition must forward the before-region arguments unchanged")
        for arg, name in zip(after.args, carried):
            self.names[arg] = name
        start = len(self.lines)
        for child in cond_ops:
            self.op(child, depth)
        prelude = self.lines[start:]
        self.line(depth, f"while {self.expr(condition.condition).text}:")
        self.body_with_yield(after, carried, depth + 1)
        for text in prelude:
            self.lines.append("    " + text)
        self.bind_results(op, carried, depth)


def comment_text(text: str) -> str:
    """``text`` on one comment line: a line break in an attribute would end
    the comment and make the rest of it code."""
    return " ".join(text.split())


def python_name(hint: str) -> str:
    """A Python variable name for an SSA name hint: IR names may hold ``.``,
    ``-`` and ``$`` (``%a.b``), which would make ``a.b = ...`` an attribute
    assignment; they become ``_``, and a keyword gets a trailing ``_``."""
    name = re.sub(r"\W", "_", hint)
    if not name or name[0].isdigit():
        name = "v_" + name
    return name + "_" if keyword.iskeyword(name) else name


def _compile_time(value: SSAValue) -> bool:
    """Whether ``value`` is computed from constexprs and literals alone
    (Triton knows it when it compiles the kernel)."""
    if isinstance(value.type, tile.ConstexprType):
        return True
    owner = value.owner
    if isinstance(owner, Block) or not isinstance(owner, Operation):
        return False
    if isinstance(owner, (arith.ConstantOp, tile.LiteralOp)):
        return True
    pure = owner.has_trait(Pure) and not owner.regions
    return pure and bool(owner.operands) and all(_compile_time(v) for v in owner.operands)


_CONSTEXPR_ARITH = (tile.AddOp, tile.SubOp, tile.MulOp, tile.FloorDivOp, tile.ModOp, tile.ShlOp, tile.ShrOp)


def _is_local_constexpr(op: Operation) -> bool:
    """``NAME: tl.constexpr = ...`` in the source: a named retype to constexpr."""
    return (
        isinstance(op, tile.RetypeOp)
        and isinstance(op.res.type, tile.ConstexprType)
        and op.res.name_hint is not None
    )


def _is_ancestor(op: Operation, maybe_descendant: Operation | None) -> bool:
    while maybe_descendant is not None:
        if maybe_descendant is op:
            return True
        maybe_descendant = maybe_descendant.parent_op()
    return False
