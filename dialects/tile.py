"""The `tile` dialect: Triton kernels at tile granularity.

A `tile.func` is one `@triton.jit` function. Its arguments keep the Python
parameter names (as SSA name hints) and their constexpr-ness (`!tile.constexpr`);
block sizes stay symbolic: a shape dimension that depends on a constexpr is `?`
and the op that creates the block takes the constexpr SSA value as an operand,
so the emitted kernel still autotunes.

Types. Triton is dynamically typed until launch (a pointer parameter's element
type and a scalar parameter's width are fixed by the arguments), so the types
here say what is known at import time and no more:

- builtin `i1`/`i32`/`i64`/`f16`/`bf16`/`f32`/`f64`: scalars of known dtype;
- `!tile.scalar`: a runtime scalar argument whose dtype is fixed at launch
  (also the element type of a block whose dtype is not known);
- `!tile.any`: a value whose kind or dtype is only known at launch (an
  unannotated runtime scalar, a jit helper's parameter, ...);
- `!tile.constexpr`: a `tl.constexpr` parameter (int, bool, string or dtype);
- `!tile.ptr`: a pointer whose element type is fixed at launch;
- `!tile.block<?x32xf32>`: a block (Triton tensor), `?` for symbolic dims;
- `!tile.desc<2>`: a tensor descriptor of the given rank.

Arithmetic. xDSL's `arith` ops require operands of one identical type, while
Triton broadcasts and promotes implicitly (and `//`, `%` follow C, not Python,
on integers), so elementwise arithmetic lives here as `tile.add`, `tile.cmp`,
...; `arith.constant` is used for literals and `scf.for/if/while` for control
flow, whose semantics do match.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from xdsl.dialects.builtin import (
    FileLineColLoc,
    DYNAMIC_INDEX,
    ModuleOp,
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from syncopate.dialects import python_grammar as grammar
from syncopate.dialects import python_syntax as py
from syncopate.dialects.ssa_order import check_definitions_dominate

DYNAMIC = DYNAMIC_INDEX  # `?`: a symbolic (constexpr-sized) dimension


# --------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------


@irdl_attr_definition
class AnyValueType(ParametrizedAttribute, TypeAttribute):
    """A value whose kind or dtype Triton only fixes at launch."""

    name = "tile.any"


@irdl_attr_definition
class ScalarType(ParametrizedAttribute, TypeAttribute):
    """A runtime scalar kernel argument; Triton fixes its dtype at launch
    (ints become i32 or i64, floats f32). As a block element type it means an
    element of unknown dtype."""

    name = "tile.scalar"


@irdl_attr_definition
class ConstexprType(ParametrizedAttribute, TypeAttribute):
    """A `tl.constexpr` value (int, bool, string or dtype), bound at compile time."""

    name = "tile.constexpr"


@irdl_attr_definition
class PointerType(ParametrizedAttribute, TypeAttribute):
    """A global-memory pointer; its element type is fixed at launch."""

    name = "tile.ptr"


@irdl_attr_definition
class BlockType(ParametrizedAttribute, TypeAttribute):
    """A Triton block (tensor). Dims are sizes or `?` (symbolic, constexpr-sized)."""

    name = "tile.block"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def __init__(self, shape: Sequence[int], element_type: Attribute):
        super().__init__(ArrayAttr(IntAttr(d) for d in shape), element_type)

    @property
    def rank(self) -> int:
        return len(self.shape.data)

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            for dim in self.get_shape():
                printer.print_string("?" if dim == DYNAMIC else str(dim))
                printer.print_string("x")
            printer.print_attribute(self.element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[ArrayAttr[IntAttr], Attribute]:
        with parser.in_angle_brackets():
            dims, element_type = parser.parse_ranked_shape()
        return ArrayAttr(IntAttr(d) for d in dims), element_type

    def verify(self) -> None:
        if not self.shape.data:
            raise VerifyException("tile.block must have rank >= 1")
        for dim in self.get_shape():
            if dim != DYNAMIC and dim <= 0:
                raise VerifyException(f"tile.block dims must be positive or '?', got {dim}")


@irdl_attr_definition
class DescriptorType(ParametrizedAttribute, TypeAttribute):
    """A tensor descriptor (`tl.make_tensor_descriptor`) of a given rank."""

    name = "tile.desc"

    rank: IntAttr

    def __init__(self, rank: int):
        super().__init__(IntAttr(rank))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(str(self.rank.data))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr]:
        with parser.in_angle_brackets():
            return (IntAttr(parser.parse_integer()),)


def rank_of(type_: Attribute) -> int | None:
    """Rank of a block type, 0 for a known scalar, None when unknown (`!tile.any`)."""
    if isinstance(type_, BlockType):
        return type_.rank
    if isinstance(type_, AnyValueType):
        return None
    return 0


def element_of(type_: Attribute) -> Attribute:
    return type_.element_type if isinstance(type_, BlockType) else type_


def is_pointer_like(type_: Attribute) -> bool:
    return isinstance(element_of(type_), PointerType)


def _check_axis(op: IRDLOperation, axis: int, rank: int | None, extra: int = 0) -> None:
    if rank is None:
        return
    limit = rank + extra
    if not -limit <= axis < limit:
        raise VerifyException(f"{op.name}: axis {axis} out of range for rank {rank}")


def static_keywords(op: IRDLOperation) -> list[str]:
    """The names of an op's literal keyword arguments (``static_kwargs``)."""
    attrs = op.properties.get("static_kwargs")
    return list(attrs.data) if isinstance(attrs, DictionaryAttr) else []


def check_mask(op: IRDLOperation, mask: SSAValue | None) -> None:
    """A mask is i1, a block of i1, or of a type only known at launch; a
    block of floats or ints is not a mask (Triton would reject the kernel)."""
    if mask is None:
        return
    element = element_of(mask.type)
    if element == i1 or isinstance(element, (AnyValueType, ScalarType, ConstexprType)):
        return
    raise VerifyException(f"{op.name}: the mask must be i1 or a block of i1, got {mask.type}")


# --------------------------------------------------------------------------
# Kernels, helpers, calls
# --------------------------------------------------------------------------


@irdl_op_definition
class FuncOp(IRDLOperation):
    """One `@triton.jit` function (a kernel or a jit helper).

    Properties: `param_names` are the Python parameter names, verbatim (SSA
    name hints cannot hold a trailing `_<digits>`, so they are only a hint for
    reading the IR); `decorators` keeps the decorator source lines (e.g. an
    `@triton.autotune(...)`) verbatim; `defaults` maps constexpr parameter
    names to their default values (printable literals); `arg_annotations`
    keeps non-constexpr annotations the user wrote. The verifier checks that
    each of these is the Python it means (`python_syntax.py`) and that every
    value in the body is defined before its uses (`ssa_order.py`).
    """

    name = "tile.func"

    body = region_def("single_block")
    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    param_names = prop_def(ArrayAttr[StringAttr])
    decorators = opt_prop_def(ArrayAttr[StringAttr])
    defaults = opt_prop_def(DictionaryAttr)
    arg_annotations = opt_prop_def(DictionaryAttr)

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(
        self,
        sym_name: str,
        function_type: FunctionType,
        body: Region,
        param_names: Sequence[str],
        decorators: Sequence[str] = (),
        defaults: dict[str, Attribute] | None = None,
        arg_annotations: dict[str, Attribute] | None = None,
    ):
        props: dict[str, Attribute | None] = {
            "sym_name": StringAttr(sym_name),
            "function_type": function_type,
            "param_names": ArrayAttr(StringAttr(n) for n in param_names),
            "decorators": ArrayAttr(StringAttr(d) for d in decorators) if decorators else None,
            "defaults": DictionaryAttr(defaults) if defaults else None,
            "arg_annotations": DictionaryAttr(arg_annotations) if arg_annotations else None,
        }
        super().__init__(properties={k: v for k, v in props.items() if v is not None}, regions=[body])

    @property
    def arg_names(self) -> list[str]:
        return [name.data for name in self.param_names.data]

    def verify_(self) -> None:
        args = self.body.block.args
        if tuple(a.type for a in args) != tuple(self.function_type.inputs.data):
            raise VerifyException(f"tile.func @{self.sym_name.data}: block argument types differ from function_type")
        names = self.arg_names
        if len(names) != len(args):
            raise VerifyException(
                f"tile.func @{self.sym_name.data}: {len(names)} param_names for {len(args)} arguments"
            )
        if len(set(names)) != len(names):
            raise VerifyException(f"tile.func @{self.sym_name.data}: duplicate parameter names")
        self.verify_python()
        last = self.body.block.last_op
        if not isinstance(last, ReturnOp):
            raise VerifyException(f"tile.func @{self.sym_name.data}: body must end with tile.return")
        returned = tuple(v.type for v in last.values)
        if returned != tuple(self.function_type.outputs.data):
            raise VerifyException(
                f"tile.func @{self.sym_name.data}: tile.return types ({', '.join(map(str, returned))}) differ "
                f"from the declared results ({', '.join(map(str, self.function_type.outputs.data))})"
            )

    def verify_python(self) -> None:
        """The names, decorators, defaults and annotations the emitter writes
        verbatim are Python of the kind each one means (dialects/python_syntax.py;
        module-level fragments follow dialects/python_grammar.py), and every value is defined before its uses."""
        where = f"tile.func @{self.sym_name.data}"
        py.check_binding_name("tile.func: function name", self.sym_name.data)
        names = self.arg_names
        for name in names:
            py.check_binding_name(f"{where}: parameter", name)
        module = self.parent_op()
        scope = grammar.module_scope(module if isinstance(module, ModuleOp) else None)
        loc = self.location  # dialects sit below ir/locations.py; the same `file.py:LINE` prefix
        line = f"{Path(loc.filename.data).name}:{loc.line.data}: " if isinstance(loc, FileLineColLoc) else ""
        self.verify_fragments(scope, line + where)
        defaults = self.defaults.data if self.defaults is not None else {}
        for label, entries in (("default", defaults), ("annotation", self.arg_annotations.data if self.arg_annotations else {})):
            for name, value in entries.items():
                if name not in names:
                    raise VerifyException(f"{where}: {label} for {name!r}, which is not a parameter")
                if label == "annotation" and not isinstance(value, StringAttr):
                    raise VerifyException(f"{where}: the annotation of {name!r} must be a string, got {value}")
        defaulted = [name in defaults for name in names]
        if any(d and not later for d, later in zip(defaulted, defaulted[1:])):
            first = names[defaulted.index(True)]
            raise VerifyException(
                f"{where}: parameter {names[defaulted.index(False, defaulted.index(True))]!r} has no default but "
                f"follows {first!r}, which has one (Python needs the defaulted parameters last)"
            )
        check_definitions_dominate(self, where)

    def verify_fragments(self, scope: grammar.Scope, where: str) -> None:
        """Each decorator, and each default and annotation held as Python
        text, is one expression of the grammar an emitted file may hold
        (dialects/python_grammar.py); ``where`` names the function."""
        for decorator in self.decorators.data if self.decorators is not None else ():
            grammar.check_expression(grammar.fragment_what(where, "decorator", decorator.data), decorator.data, scope)
        for label, entries in (("default", self.defaults), ("annotation", self.arg_annotations)):
            for name, value in entries.data.items() if entries is not None else ():
                if isinstance(value, StringAttr):
                    what = grammar.fragment_what(where, f"{label} of {name!r}", value.data)
                    grammar.check_expression(what, value.data, scope)

    def print(self, printer: Printer):
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.properties | self.attributes,
            reserved_attr_names=("sym_name", "function_type"),
        )

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name, input_types, return_types, region, extra_attrs, _arg_attrs, _res_attrs = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type")
        )
        hints = [arg.name_hint or f"arg{i}" for i, arg in enumerate(region.block.args)] if region.blocks else []
        func = FuncOp(name, FunctionType.from_lists(input_types, return_types), region, hints)
        if extra_attrs is not None:
            for key, value in extra_attrs.data.items():
                if key in ("param_names", "decorators", "defaults", "arg_annotations"):
                    func.properties[key] = value
                else:
                    func.attributes[key] = value
        return func


@irdl_op_definition
class ReturnOp(IRDLOperation):
    name = "tile.return"
    values = var_operand_def()
    assembly_format = "($values^ `:` type($values))? attr-dict"
    traits = traits_def(IsTerminator(), HasParent(FuncOp))

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[values])


@irdl_op_definition
class CallJitOp(IRDLOperation):
    """A call to another `@triton.jit` function of the module."""

    name = "tile.call_jit"
    callee = prop_def(SymbolRefAttr)
    arguments = var_operand_def()
    res = var_result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $res)"

    def __init__(self, callee: str, arguments: Sequence[SSAValue], result_types: Sequence[Attribute]):
        super().__init__(
            operands=[arguments], result_types=[result_types], properties={"callee": SymbolRefAttr(callee)}
        )

    def verify_(self) -> None:
        """The callee is a `tile.func` of the enclosing module, called with
        one operand per parameter and one result per returned value."""
        name = self.callee.string_value()
        module = self.parent_op()
        while module is not None and not isinstance(module, ModuleOp):
            module = module.parent_op()
        if module is None:
            return  # a detached op: checked once it is in a module
        callee = SymbolTable.lookup_symbol(module, self.callee)
        if callee is None:
            raise VerifyException(f"tile.call_jit: the module has no function @{name}")
        if not isinstance(callee, FuncOp):
            raise VerifyException(f"tile.call_jit: @{name} is a {callee.name}, not a tile.func")
        params, results = len(callee.function_type.inputs.data), len(callee.function_type.outputs.data)
        if len(self.arguments) != params:
            raise VerifyException(f"tile.call_jit: @{name} takes {params} argument(s), {len(self.arguments)} given")
        if len(self.res) != results:
            raise VerifyException(f"tile.call_jit: @{name} returns {results} value(s), the call has {len(self.res)} result(s)")


@irdl_op_definition
class CallOp(IRDLOperation):
    """Any other builtin, by dotted name (`tl.sigmoid`, `tl.math.exp2`, `min`).

    Operands are the positional arguments followed by the keyword arguments
    named in `kwarg_names`; `static_kwargs` holds literal keyword arguments
    (strings, ints, bools, dtypes) that are not SSA values. The callee is a
    `tl.`/`triton.` dotted name, `min`/`max`, or `.method` called on the
    first operand; keywords are identifiers, each given once.
    """

    name = "tile.call"
    callee = prop_def(StringAttr)
    kwarg_names = opt_prop_def(ArrayAttr[StringAttr])
    static_kwargs = opt_prop_def(DictionaryAttr)
    arguments = var_operand_def()
    res = opt_result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $res)"

    def __init__(
        self,
        callee: str,
        positional: Sequence[SSAValue],
        keywords: dict[str, SSAValue],
        static_kwargs: dict[str, Attribute],
        result_type: Attribute | None,
    ):
        super().__init__(
            operands=[[*positional, *keywords.values()]],
            result_types=[[result_type] if result_type is not None else []],
            properties={
                "callee": StringAttr(callee),
                **({"kwarg_names": ArrayAttr(StringAttr(k) for k in keywords)} if keywords else {}),
                **({"static_kwargs": DictionaryAttr(static_kwargs)} if static_kwargs else {}),
            },
        )

    SIDE_EFFECTS: ClassVar[tuple[str, ...]] = (
        "store", "atomic", "print", "assert", "barrier", "inline_asm", "rand", "load",
    )  # fmt: skip

    @property
    def is_pure(self) -> bool:
        """True for callees known to read no memory and have no effect (math, casts, min/max)."""
        return bool(self.results) and not any(word in self.callee.data for word in self.SIDE_EFFECTS)

    @property
    def keyword_names(self) -> list[str]:
        return [k.data for k in self.kwarg_names.data] if self.kwarg_names is not None else []

    @property
    def num_positional(self) -> int:
        return len(self.arguments) - len(self.keyword_names)

    def verify_(self) -> None:
        if len(self.keyword_names) > len(self.arguments):
            raise VerifyException(f"tile.call {self.callee.data}: more keyword names than operands")
        py.check_callee(self.callee.data, self.num_positional)
        py.check_keywords(f"tile.call {self.callee.data}", self.keyword_names + static_keywords(self))


# --------------------------------------------------------------------------
# Indices and block construction
# --------------------------------------------------------------------------


class _AxisOp(IRDLOperation):
    axis = prop_def(IntegerAttr)
    res = result_def()
    traits = traits_def(Pure())

    def __init__(self, axis: int):
        super().__init__(properties={"axis": IntegerAttr(axis, i64)}, result_types=[i32])

    def verify_(self) -> None:
        if self.axis.value.data not in (0, 1, 2):
            raise VerifyException(f"{self.name}: axis must be 0, 1 or 2, got {self.axis.value.data}")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.axis.value.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.res.type)

    @classmethod
    def parse(cls, parser: Parser):
        axis = parser.parse_integer()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        op = cls.create(properties={"axis": IntegerAttr(axis, i64)}, result_types=[result_type])
        op.attributes.update(attributes)
        return op


@irdl_op_definition
class ProgramIdOp(_AxisOp):
    name = "tile.program_id"


@irdl_op_definition
class NumProgramsOp(_AxisOp):
    name = "tile.num_programs"


@irdl_op_definition
class ArangeOp(IRDLOperation):
    """`tl.arange(start, end)`; bounds are constants or constexpr SSA values."""

    name = "tile.arange"
    start = operand_def()
    end = operand_def()
    res = result_def(BlockType)
    assembly_format = "$start `,` $end attr-dict `:` type($start) `,` type($end) `->` type($res)"
    traits = traits_def(Pure())

    def __init__(self, start: SSAValue, end: SSAValue, result_type: BlockType):
        super().__init__(operands=[start, end], result_types=[result_type])

    def verify_(self) -> None:
        if self.res.type.rank != 1:
            raise VerifyException("tile.arange must produce a rank-1 block")


@irdl_op_definition
class ExpandDimsOp(IRDLOperation):
    """`x[:, None]`, `x[None, :]` and `tl.expand_dims(x, axis)`."""

    name = "tile.expand_dims"
    src = operand_def()
    axis = prop_def(IntegerAttr)
    res = result_def()
    assembly_format = "$src `,` $axis attr-dict `:` type($src) `->` type($res)"
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue, axis: int, result_type: Attribute):
        super().__init__(operands=[src], properties={"axis": IntegerAttr(axis, i64)}, result_types=[result_type])

    def verify_(self) -> None:
        _check_axis(self, self.axis.value.data, rank_of(self.src.type), extra=1)
        src_rank, res_rank = rank_of(self.src.type), rank_of(self.res.type)
        if src_rank is not None and res_rank is not None and res_rank != src_rank + 1:
            raise VerifyException(f"tile.expand_dims: result rank {res_rank} must be source rank {src_rank} + 1")


@irdl_op_definition
class BroadcastOp(IRDLOperation):
    """`tl.broadcast_to(x, shape)`; shape entries are constants or constexpr values."""

    name = "tile.broadcast"
    src = operand_def()
    shape = var_operand_def()
    res = result_def()
    assembly_format = "$src `to` `[` $shape `]` attr-dict `:` type($src) `,` type($shape) `->` type($res)"
    traits = traits_def(Pure())


@irdl_op_definition
class SplatOp(IRDLOperation):
    """`tl.full(shape, value, dtype)`; `tl.zeros(shape, dtype)` is a splat of 0.
    An empty shape (`tl.full((), value, dtype)`) is a 0-d value: its result
    is the element type itself, not a block."""

    name = "tile.splat"
    value = operand_def()
    shape = var_operand_def()
    dtype = prop_def(Attribute)
    res = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$value `to` `[` $shape `]` attr-dict `:` type($value) `,` type($shape) `->` type($res)"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        rank = self.res.type.rank if isinstance(self.res.type, BlockType) else 0
        if len(self.shape) != rank or (not self.shape and self.res.type != self.dtype):
            raise VerifyException(
                f"tile.splat: {len(self.shape)} shape operands for a rank-{rank} result of type {self.res.type}"
                " (a 0-d splat has the dtype as its type)"
            )


@irdl_op_definition
class ZerosOp(IRDLOperation):
    """`tl.zeros(shape, dtype)`."""

    name = "tile.zeros"
    shape = var_operand_def()
    dtype = prop_def(Attribute)
    res = result_def(BlockType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "`[` $shape `]` attr-dict `:` type($shape) `->` type($res)"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if len(self.shape) != self.res.type.rank:
            raise VerifyException(
                f"tile.zeros: {len(self.shape)} shape operands for a rank-{self.res.type.rank} result"
            )


# --------------------------------------------------------------------------
# Elementwise arithmetic (Triton semantics: implicit broadcast and promotion)
# --------------------------------------------------------------------------


class TwoOperandOp(IRDLOperation):
    """Base of ops `r = f(lhs, rhs)` with Triton's broadcasting and promotion."""

    lhs = operand_def()
    rhs = operand_def()
    res = result_def()
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($res)"
    traits = traits_def(Pure())

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute):
        super().__init__(operands=[lhs, rhs], result_types=[result_type])


class BinaryOp(TwoOperandOp):
    """Elementwise binary op written as a Python operator."""

    PYTHON_OPERATOR: ClassVar[str]


def _binary(op_name: str, operator: str) -> type[BinaryOp]:
    cls = type(
        op_name.split(".")[1].title().replace("_", "") + "Op",
        (BinaryOp,),
        {
            "name": op_name,
            "PYTHON_OPERATOR": operator,
            "__annotations__": {"PYTHON_OPERATOR": "ClassVar[str]"},
            "__doc__": f"`a {operator} b` in Triton.",
        },
    )
    return irdl_op_definition(cls)


AddOp = _binary("tile.add", "+")
SubOp = _binary("tile.sub", "-")
MulOp = _binary("tile.mul", "*")
TrueDivOp = _binary("tile.truediv", "/")
FloorDivOp = _binary("tile.floordiv", "//")
ModOp = _binary("tile.mod", "%")
AndOp = _binary("tile.and", "&")
OrOp = _binary("tile.or", "|")
XorOp = _binary("tile.xor", "^")
ShlOp = _binary("tile.shl", "<<")
ShrOp = _binary("tile.shr", ">>")
LogicalAndOp = _binary("tile.logical_and", "and")
LogicalOrOp = _binary("tile.logical_or", "or")

BINARY_OPS: tuple[type[BinaryOp], ...] = (
    AddOp, SubOp, MulOp, TrueDivOp, FloorDivOp, ModOp, AndOp, OrOp, XorOp, ShlOp, ShrOp,
    LogicalAndOp, LogicalOrOp,
)  # fmt: skip


@irdl_op_definition
class AddPtrOp(IRDLOperation):
    """Pointer plus element offset (`ptr + offs`), broadcasting like Triton."""

    name = "tile.addptr"
    ptr = operand_def()
    offset = operand_def()
    res = result_def()
    assembly_format = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset) `->` type($res)"
    traits = traits_def(Pure())

    def __init__(self, ptr: SSAValue, offset: SSAValue, result_type: Attribute):
        super().__init__(operands=[ptr, offset], result_types=[result_type])

    def verify_(self) -> None:
        if not (is_pointer_like(self.ptr.type) or isinstance(self.ptr.type, AnyValueType)):
            raise VerifyException(f"tile.addptr: first operand must be a pointer, got {self.ptr.type}")
        if is_pointer_like(self.offset.type):
            raise VerifyException("tile.addptr: the offset must not be a pointer")


CMP_PREDICATES = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=", "is": "is", "isnot": "is not"}
IDENTITY_PREDICATES = ("is", "isnot")
"""``p is None`` / ``p is not None``: Triton decides them when it compiles
(a parameter passed None is specialized to the constant None), so they are
kept as written; their right operand is the literal None, or a dtype
(``x.dtype is tl.bfloat16``, which Triton decides the same way)."""


@irdl_op_definition
class CmpOp(IRDLOperation):
    """Elementwise comparison; predicate one of lt, le, gt, ge, eq, ne, or
    an identity test against None or a dtype (``is`` / ``isnot``, see
    :data:`IDENTITY_PREDICATES`)."""

    name = "tile.cmp"
    predicate = prop_def(StringAttr)
    lhs = operand_def()
    rhs = operand_def()
    res = result_def()
    assembly_format = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($res)"
    traits = traits_def(Pure())

    def __init__(self, predicate: str, lhs: SSAValue, rhs: SSAValue, result_type: Attribute):
        super().__init__(
            operands=[lhs, rhs], properties={"predicate": StringAttr(predicate)}, result_types=[result_type]
        )

    def verify_(self) -> None:
        if self.predicate.data not in CMP_PREDICATES:
            raise VerifyException(
                f"tile.cmp: unknown predicate '{self.predicate.data}' (expected one of {', '.join(CMP_PREDICATES)})"
            )
        if self.predicate.data in IDENTITY_PREDICATES:
            rhs = self.rhs.owner
            # None, or a dtype (`x.dtype is tl.bfloat16`): what Triton decides when it compiles
            if not (isinstance(rhs, LiteralOp) and isinstance(rhs.value, (NoneAttr, TypeAttribute))):
                raise VerifyException(f"tile.cmp \"{self.predicate.data}\": the right operand must be `tile.literal none` "
                                      "or a dtype literal")


class UnaryOp(IRDLOperation):
    PYTHON_OPERATOR: ClassVar[str]
    src = operand_def()
    res = result_def()
    assembly_format = "$src attr-dict `:` type($src) `->` type($res)"
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])


@irdl_op_definition
class NegOp(UnaryOp):
    """`-x`."""

    name = "tile.neg"
    PYTHON_OPERATOR: ClassVar[str] = "-"


@irdl_op_definition
class NotOp(UnaryOp):
    """`not x`."""

    name = "tile.not"
    PYTHON_OPERATOR: ClassVar[str] = "not "


@irdl_op_definition
class InvertOp(UnaryOp):
    """`~x`."""

    name = "tile.invert"
    PYTHON_OPERATOR: ClassVar[str] = "~"


@irdl_op_definition
class CdivOp(TwoOperandOp):
    """`tl.cdiv(a, b)` / `triton.cdiv(a, b)`: ceiling division."""

    name = "tile.cdiv"


@irdl_op_definition
class WhereOp(IRDLOperation):
    """`tl.where(cond, a, b)`."""

    name = "tile.where"
    cond = operand_def()
    true_value = operand_def()
    false_value = operand_def()
    res = result_def()
    assembly_format = (
        "$cond `,` $true_value `,` $false_value attr-dict `:` "
        "type($cond) `,` type($true_value) `,` type($false_value) `->` type($res)"
    )
    traits = traits_def(Pure())


@irdl_op_definition
class CastOp(IRDLOperation):
    """`x.to(dtype)` (`bitcast` for `bitcast=True`)."""

    name = "tile.cast"
    src = operand_def()
    dtype = prop_def(Attribute)
    bitcast = opt_prop_def(BoolAttr)
    res = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src attr-dict `:` type($src) `->` type($res)"
    traits = traits_def(Pure())


@irdl_op_definition
class RetypeOp(IRDLOperation):
    """A no-op type assertion where the frontend knows what inference did not.

    Used for `range()` bounds (Triton requires integers: `-> i32`), `if`/`while`
    conditions (`-> i1`) and for joining the types of values that meet at a
    loop or branch (`-> !tile.any`). The emitter prints the operand unchanged.
    """

    name = "tile.retype"
    src = operand_def()
    res = result_def()
    assembly_format = "$src attr-dict `:` type($src) `->` type($res)"
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])


@irdl_op_definition
class UndefOp(IRDLOperation):
    """The value of a name that one arm of a constexpr ``if`` binds and the
    other does not (``if HAS_WEIGHT: w = tl.load(...)``): that other arm
    yields it. Triton resolves a constexpr condition when it compiles, so
    the source reads the name only under the same condition; the emitter
    leaves the name unbound in that arm, as the source did. Only a
    ``scf.yield`` may use it."""

    name = "tile.undef"
    res = result_def()
    assembly_format = "attr-dict `:` type($res)"
    traits = traits_def(Pure())

    def __init__(self, result_type: Attribute):
        super().__init__(result_types=[result_type])

    def verify_(self) -> None:
        for use in self.res.uses:
            if use.operation.name != "scf.yield":
                raise VerifyException(f"tile.undef: only an scf.yield may use it, not {use.operation.name}")


@irdl_op_definition
class LiteralOp(IRDLOperation):
    """A compile-time Python literal that is not a number: a string, a dtype
    (a builtin type, e.g. `tl.float16` is `f16`) or None."""

    name = "tile.literal"
    value = prop_def(Attribute)
    res = result_def(ConstexprType)
    assembly_format = "$value attr-dict"
    traits = traits_def(Pure())

    def __init__(self, value: Attribute):
        super().__init__(properties={"value": value}, result_types=[ConstexprType()])


@irdl_op_definition
class TupleOp(IRDLOperation):
    """A tuple or list literal passed to a builtin (`tl.reshape(x, (BM, 2))`,
    `tl.permute(x, [1, 0])`); `list` keeps the brackets the user wrote."""

    name = "tile.tuple"
    elements = var_operand_def()
    brackets = opt_prop_def(UnitAttr, prop_name="list")
    res = result_def(AnyValueType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "`(` $elements `)` attr-dict `:` type($elements)"
    traits = traits_def(Pure())

    def __init__(self, elements: Sequence[SSAValue], brackets: bool = False):
        super().__init__(operands=[elements], properties={"list": UnitAttr()} if brackets else {},
                         result_types=[AnyValueType()])


@irdl_op_definition
class AttrOp(IRDLOperation):
    """A Python attribute chain on a value, e.g. `c_ptr.dtype.element_ty`."""

    name = "tile.attr"
    path = prop_def(StringAttr)
    src = operand_def()
    res = result_def()
    assembly_format = "$src `,` $path attr-dict `:` type($src) `->` type($res)"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        py.check_attribute_path("tile.attr: path", self.path.data)


@irdl_op_definition
class TransOp(IRDLOperation):
    """`tl.trans(x)` / `x.T` for rank-2 blocks."""

    name = "tile.trans"
    src = operand_def()
    res = result_def()
    assembly_format = "$src attr-dict `:` type($src) `->` type($res)"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if rank_of(self.src.type) not in (None, 2):
            raise VerifyException("tile.trans: operand must be a rank-2 block")


@irdl_op_definition
class SplitOp(IRDLOperation):
    """`a, b = tl.split(x)`: the two halves of a block whose last dim is 2
    (an epilogue that stores a tile in two column halves, after
    `tl.reshape` and `tl.permute`)."""

    name = "tile.split"
    src = operand_def()
    low = result_def()
    high = result_def()
    assembly_format = "$src attr-dict `:` type($src) `->` type($low) `,` type($high)"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if rank_of(self.src.type) == 0:
            raise VerifyException("tile.split: the operand must be a block, not a scalar")
        if isinstance(self.src.type, BlockType) and self.src.type.get_shape()[-1] not in (2, DYNAMIC):
            raise VerifyException("tile.split: the operand's last dim must be 2")


REDUCE_KINDS = ("sum", "max", "min", "argmax", "argmin", "xor_sum", "reduce_or")


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """`tl.sum/max/min/argmax/argmin/xor_sum(x, axis, keep_dims)`."""

    name = "tile.reduce"
    kind = prop_def(StringAttr)
    axis = opt_prop_def(IntegerAttr)
    keep_dims = opt_prop_def(BoolAttr)
    src = operand_def()
    res = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$kind $src attr-dict `:` type($src) `->` type($res)"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.kind.data not in REDUCE_KINDS:
            raise VerifyException(f"tile.reduce: unknown kind '{self.kind.data}'")
        if self.axis is not None:
            _check_axis(self, self.axis.value.data, rank_of(self.src.type))


@irdl_op_definition
class DotOp(IRDLOperation):
    """`tl.dot(a, b, acc)`: a block matmul, optionally accumulating into acc."""

    name = "tile.dot"
    a = operand_def()
    b = operand_def()
    acc = opt_operand_def()
    static_kwargs = opt_prop_def(DictionaryAttr)
    res = result_def()
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$a `,` $b (`acc` $acc^ `:` type($acc))? attr-dict `:` type($a) `,` type($b) `->` type($res)"
    )

    def verify_(self) -> None:
        for operand in (self.a, self.b):
            if rank_of(operand.type) not in (None, 2, 3):
                raise VerifyException(f"tile.dot: operands must be rank-2 (or batched rank-3) blocks, got {operand.type}")
        py.check_keywords("tile.dot", static_keywords(self))


# --------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`tl.load(ptr, mask, other, ...)`; other keyword options in `static_kwargs`."""

    name = "tile.load"
    ptr = operand_def()
    mask = opt_operand_def()
    other = opt_operand_def()
    static_kwargs = opt_prop_def(DictionaryAttr)
    res = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$ptr (`mask` $mask^ `:` type($mask))? (`other` $other^ `:` type($other))? "
        "attr-dict `:` type($ptr) `->` type($res)"
    )

    def verify_(self) -> None:
        if not (is_pointer_like(self.ptr.type) or isinstance(self.ptr.type, AnyValueType)):
            raise VerifyException(f"tile.load: expected a pointer operand, got {self.ptr.type}")
        check_mask(self, self.mask)
        py.check_keywords("tile.load", static_keywords(self), taken=("mask", "other"))


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`tl.store(ptr, value, mask, ...)`."""

    name = "tile.store"
    ptr = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    static_kwargs = opt_prop_def(DictionaryAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$value `,` $ptr (`mask` $mask^ `:` type($mask))? attr-dict `:` type($value) `,` type($ptr)"
    )

    def verify_(self) -> None:
        if not (is_pointer_like(self.ptr.type) or isinstance(self.ptr.type, AnyValueType)):
            raise VerifyException(f"tile.store: expected a pointer operand, got {self.ptr.type}")
        check_mask(self, self.mask)
        py.check_keywords("tile.store", static_keywords(self), taken=("mask",))


ATOMIC_KINDS = ("add", "max", "min", "and", "or", "xor", "xchg")
MEMORY_SEMANTICS = ("relaxed", "acquire", "release", "acq_rel")
MEMORY_SCOPES = ("cta", "gpu", "sys")


def _verify_sem_scope(op: IRDLOperation, sem: StringAttr | None, scope: StringAttr | None) -> None:
    if sem is not None and sem.data not in MEMORY_SEMANTICS:
        raise VerifyException(f"{op.name}: sem must be one of {', '.join(MEMORY_SEMANTICS)}, got '{sem.data}'")
    if scope is not None and scope.data not in MEMORY_SCOPES:
        raise VerifyException(f"{op.name}: scope must be one of {', '.join(MEMORY_SCOPES)}, got '{scope.data}'")


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """`tl.atomic_add/max/min/and/or/xor/xchg(ptr, val, mask, sem, scope)`."""

    name = "tile.atomic_rmw"
    kind = prop_def(StringAttr)
    sem = opt_prop_def(StringAttr)
    scope = opt_prop_def(StringAttr)
    ptr = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    res = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$kind $ptr `,` $value (`mask` $mask^ `:` type($mask))? attr-dict `:` "
        "type($ptr) `,` type($value) `->` type($res)"
    )

    def verify_(self) -> None:
        if self.kind.data not in ATOMIC_KINDS:
            raise VerifyException(f"tile.atomic_rmw: unknown kind '{self.kind.data}'")
        _verify_sem_scope(self, self.sem, self.scope)
        check_mask(self, self.mask)


@irdl_op_definition
class AtomicCASOp(IRDLOperation):
    """`tl.atomic_cas(ptr, cmp, val, sem, scope)`."""

    name = "tile.atomic_cas"
    sem = opt_prop_def(StringAttr)
    scope = opt_prop_def(StringAttr)
    ptr = operand_def()
    cmp = operand_def()
    value = operand_def()
    res = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$ptr `,` $cmp `,` $value attr-dict `:` type($ptr) `,` type($cmp) `,` type($value) `->` type($res)"
    )

    def verify_(self) -> None:
        _verify_sem_scope(self, self.sem, self.scope)


@irdl_op_definition
class MakeTensorDescriptorOp(IRDLOperation):
    """`tl.make_tensor_descriptor(base, shape=[..], strides=[..], block_shape=[..])`."""

    name = "tile.make_tensor_descriptor"
    base = operand_def()
    shape = var_operand_def()
    strides = var_operand_def()
    block_shape = var_operand_def()
    res = result_def(DescriptorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$base `shape` `[` $shape `]` `strides` `[` $strides `]` `block` `[` $block_shape `]` attr-dict `:` "
        "type($base) `,` `(` type($shape) `)` `,` `(` type($strides) `)` `,` `(` type($block_shape) `)` `->` type($res)"
    )

    def verify_(self) -> None:
        rank = self.res.type.rank.data
        for label, values in (("shape", self.shape), ("strides", self.strides), ("block_shape", self.block_shape)):
            if len(values) != rank:
                raise VerifyException(
                    f"tile.make_tensor_descriptor: {label} has {len(values)} entries for a rank-{rank} descriptor"
                )


@irdl_op_definition
class DescriptorLoadOp(IRDLOperation):
    """`desc.load([i, j])`: the block at element offsets [i, j]."""

    name = "tile.desc_load"
    desc = operand_def(DescriptorType)
    offsets = var_operand_def()
    res = result_def()
    assembly_format = "$desc `[` $offsets `]` attr-dict `:` type($desc) `,` type($offsets) `->` type($res)"

    def verify_(self) -> None:
        if len(self.offsets) != self.desc.type.rank.data:
            raise VerifyException(
                f"tile.desc_load: {len(self.offsets)} offsets for a rank-{self.desc.type.rank.data} descriptor"
            )


@irdl_op_definition
class DescriptorStoreOp(IRDLOperation):
    """`desc.store([i, j], value)`."""

    name = "tile.desc_store"
    desc = operand_def(DescriptorType)
    offsets = var_operand_def()
    value = operand_def()
    assembly_format = (
        "$value `,` $desc `[` $offsets `]` attr-dict `:` type($value) `,` type($desc) `,` type($offsets)"
    )

    def verify_(self) -> None:
        if len(self.offsets) != self.desc.type.rank.data:
            raise VerifyException(
                f"tile.desc_store: {len(self.offsets)} offsets for a rank-{self.desc.type.rank.data} descriptor"
            )


#: ``desc.atomic_<kind>(offsets, value)`` methods of a tensor descriptor (a TMA
#: reduction on Hopper) in Triton 3.6 and later; there is no descriptor xchg or cas.
DESC_ATOMIC_KINDS = ("add", "min", "max", "and", "or", "xor")


@irdl_op_definition
class DescriptorAtomicOp(IRDLOperation):
    """`desc.atomic_add([i, j], value)` (and `atomic_min/max/and/or/xor`): the
    block at element offsets [i, j] combined with ``value`` element by element,
    atomically; out-of-bounds elements are ignored, as a store's are. The
    Triton method returns nothing useful (a void tensor), so the op has no
    result."""

    name = "tile.desc_atomic"
    kind = prop_def(StringAttr)
    desc = operand_def(DescriptorType)
    offsets = var_operand_def()
    value = operand_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$kind $value `,` $desc `[` $offsets `]` attr-dict `:` type($value) `,` type($desc) `,` type($offsets)"
    )

    def verify_(self) -> None:
        if self.kind.data not in DESC_ATOMIC_KINDS:
            raise VerifyException(f"tile.desc_atomic: unknown kind '{self.kind.data}'")
        if len(self.offsets) != self.desc.type.rank.data:
            raise VerifyException(
                f"tile.desc_atomic: {len(self.offsets)} offsets for a rank-{self.desc.type.rank.data} descriptor"
            )


@irdl_op_definition
class DescriptorBlockSizeOp(IRDLOperation):
    """`desc.block_shape[dim]`: the block size of a descriptor along ``dim``.

    For a descriptor made on the host (a ``TensorDescriptor`` argument) it
    is known only at launch; chunk-dependency-analysis uses it as the
    extent of that descriptor's loads and stores (a launch symbol, see
    ir/analysis/host_exprs.descriptor_block_symbol)."""

    name = "tile.desc_block_size"
    desc = operand_def(DescriptorType)
    dim = prop_def(IntegerAttr)
    res = result_def(ConstexprType)
    assembly_format = "$desc `[` $dim `]` attr-dict `:` type($desc)"
    traits = traits_def(Pure())

    def __init__(self, desc: SSAValue, dim: int):
        super().__init__(operands=[desc], properties={"dim": IntegerAttr(dim, 64)}, result_types=[ConstexprType()])

    def verify_(self) -> None:
        rank = self.desc.type.rank.data
        if not 0 <= self.dim.value.data < rank:
            raise VerifyException(f"tile.desc_block_size: dim {self.dim.value.data} of a rank-{rank} descriptor")


Tile = Dialect(
    "tile",
    [
        FuncOp, ReturnOp, CallJitOp, CallOp, TupleOp,
        ProgramIdOp, NumProgramsOp, ArangeOp, ExpandDimsOp, BroadcastOp, SplatOp, ZerosOp,
        *BINARY_OPS, AddPtrOp, CmpOp, NegOp, NotOp, InvertOp, CdivOp, WhereOp, CastOp, RetypeOp, UndefOp, LiteralOp, AttrOp,
        TransOp, SplitOp, ReduceOp, DotOp,
        LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp,
        MakeTensorDescriptorOp, DescriptorLoadOp, DescriptorStoreOp, DescriptorAtomicOp, DescriptorBlockSizeOp,
    ],
    [AnyValueType, ScalarType, ConstexprType, PointerType, BlockType, DescriptorType],
)  # fmt: skip

__all__ = ["Tile", "i1"]
