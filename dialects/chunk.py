"""The ``chunk`` dialect: communication chunks, chunk plans and kernel-side sync.

A ``chunk.plan`` describes one collective (all-gather, reduce-scatter,
all-to-all, all-reduce, ring-exchange) over ``W`` ranks as a list of
``chunk.chunk`` ops -- rectangular regions of a logical tensor moved from rank
``src`` to rank ``dst`` at a logical ``step`` -- plus ``chunk.tensor`` bindings
of each logical tensor to the kernel parameters that address it. A chunk with
``src == dst`` is a *local* chunk: the rank's own shard (the input it starts
with for gathers, the output it finishes with for reductions); it moves no data
but has an id, so kernels can wait on every region uniformly.

Kernel code refers to chunks with ``chunk.wait %id plan @p`` (block until chunk
``%id`` of plan ``@p`` is present on this rank) and ``chunk.signal %id plan @p``
(this tile's part of the chunk is written; ``count N`` says how many signals
complete the chunk).

Syntax (everything printed parses back)::

    chunk.plan @ag kind "all-gather" world 2 {
      chunk.tensor "a" -> "a_ptr" shape ["M", "K"] strides ["stride_a0", 1]
      chunk.chunk id 0 "a" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
      chunk.chunk id 1 "a" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend ce
      ...
    }
    chunk.wait %c plan @ag
    chunk.signal %c plan @ag count 4

Offsets, sizes and shape entries are integers or quoted symbolic expressions
(see :mod:`syncopate.ir.plans.expr`). The structural verifiers here check each
op on its own; ``chunk.plan``'s verifier then runs the semantic plan verifier
(:mod:`syncopate.ir.plans.verifier`): exact tiling, completeness, step order.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I32,
    ArrayAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    i64,
)
from xdsl.ir import Attribute, Dialect, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    NoTerminator,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

COLLECTIVE_KINDS = (
    "all-gather",
    "reduce-scatter",
    "all-to-all",
    "all-reduce",
    "ring-exchange",
)
"""Collective kinds a ``chunk.plan`` may have."""

BACKENDS = ("ce", "sm", "nccl", "unset")
"""How a chunk is moved: copy engine, SM loads/stores, NCCL, or not chosen yet."""

Extent = int | str
"""An int or a symbolic expression string (see syncopate.ir.plans.expr)."""


# --------------------------------------------------------------------------
# Helpers: python values <-> attributes, print/parse of extents
# --------------------------------------------------------------------------


def int_attr(value: int) -> IntegerAttr:
    """An i64 IntegerAttr."""
    return IntegerAttr(value, i64)


def extent_attr(value: Extent) -> IntegerAttr | StringAttr:
    """Attribute for an int or symbolic extent."""
    return int_attr(value) if isinstance(value, int) else StringAttr(value)


def extent_value(attr: Attribute) -> Extent:
    """Python value of an extent attribute."""
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    raise VerifyException(f"expected an integer or string extent, got {attr}")


def _print_extent(printer: Printer, attr: Attribute) -> None:
    value = extent_value(attr)
    if isinstance(value, int):
        printer.print_string(str(value))
    else:
        printer.print_string_literal(value)


def _parse_extent(parser: Parser) -> IntegerAttr | StringAttr:
    value = parser.parse_optional_integer(allow_boolean=False)
    if value is not None:
        return int_attr(value)
    return StringAttr(parser.parse_str_literal("Expected an integer or a quoted expression"))


def _print_extent_list(printer: Printer, attr: ArrayAttr) -> None:
    printer.print_string("[")
    for i, elem in enumerate(attr.data):
        if i:
            printer.print_string(", ")
        _print_extent(printer, elem)
    printer.print_string("]")


def _parse_extent_list(parser: Parser) -> ArrayAttr:
    return ArrayAttr(
        parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, lambda: _parse_extent(parser)
        )
    )


def _check_extent(attr: Attribute, what: str) -> None:
    """Structural check of one extent attribute (well-formed expression)."""
    from syncopate.ir.plans.errors import PlanError
    from syncopate.ir.plans.expr import check

    value = extent_value(attr)
    try:
        check(value)
    except PlanError as err:
        raise VerifyException(f"{what}: {err}") from None


def _keyword_int(parser: Parser, keyword: str) -> IntegerAttr:
    parser.parse_keyword(keyword)
    return int_attr(parser.parse_integer(allow_boolean=False))


# --------------------------------------------------------------------------
# Plan-level ops
# --------------------------------------------------------------------------


@irdl_op_definition
class PlanOp(IRDLOperation):
    """One collective as a set of chunks over ``world`` ranks.

    Optional ``splits`` (all-to-all only): ``W*W`` extents, row-major
    ``[src][dst]``, the number of elements along ``dim`` that rank ``src``
    sends to rank ``dst``. Without it, all-to-all plans are checked only for
    exact, gap-free tiling of each receiver's output.
    """

    name = "chunk.plan"

    sym_name = prop_def(StringAttr)
    kind = prop_def(StringAttr)
    world = prop_def(IntegerAttr)
    splits = opt_prop_def(ArrayAttr)
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove(), NoTerminator())

    def __init__(
        self,
        sym_name: str,
        kind: str,
        world: int,
        ops: Sequence[IRDLOperation] = (),
        splits: Sequence[Extent] | None = None,
    ):
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(sym_name),
            "kind": StringAttr(kind),
            "world": int_attr(world),
        }
        if splits is not None:
            props["splits"] = ArrayAttr([extent_attr(s) for s in splits])
        super().__init__(properties=props, regions=[Region([])])
        from xdsl.ir import Block

        self.body.add_block(Block(ops))

    @property
    def world_size(self) -> int:
        return self.world.value.data

    @property
    def collective(self) -> str:
        return self.kind.data

    @property
    def chunks(self) -> list[ChunkOp]:
        return [op for op in self.body.ops if isinstance(op, ChunkOp)]

    @property
    def tensors(self) -> list[TensorOp]:
        return [op for op in self.body.ops if isinstance(op, TensorOp)]

    def verify_(self) -> None:
        if self.collective not in COLLECTIVE_KINDS:
            raise VerifyException(
                f"unknown collective kind '{self.collective}', expected one of "
                + ", ".join(COLLECTIVE_KINDS)
            )
        if self.world_size < 1:
            raise VerifyException(f"world size must be >= 1, got {self.world_size}")
        if self.splits is not None:
            if self.collective != "all-to-all":
                raise VerifyException("'splits' is only meaningful for all-to-all plans")
            n = len(self.splits.data)
            if n != self.world_size**2:
                raise VerifyException(
                    f"'splits' needs W*W = {self.world_size**2} entries, got {n}"
                )
            for elem in self.splits.data:
                _check_extent(elem, "split")
        for op in self.body.ops:
            if not isinstance(op, (ChunkOp, TensorOp)):
                raise VerifyException(
                    f"'{op.name}' is not allowed in a chunk.plan "
                    "(only chunk.chunk and chunk.tensor)"
                )
        from syncopate.ir.plans.errors import PlanError
        from syncopate.ir.plans.verifier import verify_plan

        try:
            verify_plan(self)
        except PlanError as err:
            raise VerifyException(f"invalid chunk plan @{self.sym_name.data}: {err}") from None

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" kind ")
        printer.print_string_literal(self.collective)
        printer.print_string(f" world {self.world_size}")
        if self.splits is not None:
            printer.print_string(" splits ")
            _print_extent_list(printer, self.splits)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)

    @classmethod
    def parse(cls, parser: Parser) -> PlanOp:
        sym_name = parser.parse_symbol_name()
        parser.parse_keyword("kind")
        kind = parser.parse_str_literal("Expected the collective kind as a string")
        world = _keyword_int(parser, "world")
        splits = None
        if parser.parse_optional_keyword("splits") is not None:
            splits = _parse_extent_list(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        props: dict[str, Attribute] = {
            "sym_name": sym_name,
            "kind": StringAttr(kind),
            "world": world,
        }
        if splits is not None:
            props["splits"] = splits
        op = cls.create(properties=props, regions=[region])
        if not region.blocks:
            from xdsl.ir import Block

            region.add_block(Block())
        if attrs is not None:
            op.attributes |= attrs.data
        return op


@irdl_op_definition
class TensorOp(IRDLOperation):
    """Binds a logical tensor of the plan to the kernel's parameters.

    ``param`` is the kernel parameter holding the base pointer; ``shape`` lists
    the extent of each dimension (shape symbols like ``"M"`` or ints) and
    ``strides`` the stride of each dimension (parameter names or ints).
    """

    name = "chunk.tensor"

    tensor = prop_def(StringAttr)
    param = prop_def(StringAttr)
    shape = prop_def(ArrayAttr)
    strides = prop_def(ArrayAttr)

    traits = traits_def(HasParent(PlanOp))

    def __init__(
        self,
        tensor: str,
        param: str,
        shape: Sequence[Extent],
        strides: Sequence[Extent],
    ):
        super().__init__(
            properties={
                "tensor": StringAttr(tensor),
                "param": StringAttr(param),
                "shape": ArrayAttr([extent_attr(s) for s in shape]),
                "strides": ArrayAttr([extent_attr(s) for s in strides]),
            }
        )

    @property
    def shape_values(self) -> list[Extent]:
        return [extent_value(a) for a in self.shape.data]

    @property
    def stride_values(self) -> list[Extent]:
        return [extent_value(a) for a in self.strides.data]

    def verify_(self) -> None:
        if not self.shape.data:
            raise VerifyException(f"tensor '{self.tensor.data}' needs at least one dimension")
        if len(self.strides.data) != len(self.shape.data):
            raise VerifyException(
                f"tensor '{self.tensor.data}' has {len(self.shape.data)} shape entries "
                f"but {len(self.strides.data)} strides"
            )
        for elem in self.shape.data:
            _check_extent(elem, f"shape of tensor '{self.tensor.data}'")
        for elem in self.strides.data:
            value = extent_value(elem)
            if isinstance(value, str) and not value.isidentifier():
                raise VerifyException(
                    f"stride '{value}' of tensor '{self.tensor.data}' must be an int "
                    "or a kernel parameter name"
                )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.tensor.data)
        printer.print_string(" -> ")
        printer.print_string_literal(self.param.data)
        printer.print_string(" shape ")
        _print_extent_list(printer, self.shape)
        printer.print_string(" strides ")
        _print_extent_list(printer, self.strides)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> TensorOp:
        tensor = parser.parse_str_literal("Expected the logical tensor name")
        parser.parse_punctuation("->")
        param = parser.parse_str_literal("Expected the base-pointer parameter name")
        parser.parse_keyword("shape")
        shape = _parse_extent_list(parser)
        parser.parse_keyword("strides")
        strides = _parse_extent_list(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls.create(
            properties={
                "tensor": StringAttr(tensor),
                "param": StringAttr(param),
                "shape": shape,
                "strides": strides,
            }
        )
        if attrs is not None:
            op.attributes |= attrs.data
        return op


@irdl_op_definition
class ChunkOp(IRDLOperation):
    """A region ``[offset, offset+size)`` along ``dim`` of a logical tensor,
    moved from rank ``src`` to rank ``dst`` at logical ``step`` by ``backend``.
    """

    name = "chunk.chunk"

    chunk_id = prop_def(IntegerAttr)
    tensor = prop_def(StringAttr)
    dim = prop_def(IntegerAttr)
    offset = prop_def(IntegerAttr | StringAttr)
    size = prop_def(IntegerAttr | StringAttr)
    src = prop_def(IntegerAttr)
    dst = prop_def(IntegerAttr)
    step = prop_def(IntegerAttr)
    backend = prop_def(StringAttr)

    traits = traits_def(HasParent(PlanOp))

    def __init__(
        self,
        chunk_id: int,
        tensor: str,
        dim: int,
        offset: Extent,
        size: Extent,
        src: int,
        dst: int,
        step: int,
        backend: str = "unset",
    ):
        super().__init__(
            properties={
                "chunk_id": int_attr(chunk_id),
                "tensor": StringAttr(tensor),
                "dim": int_attr(dim),
                "offset": extent_attr(offset),
                "size": extent_attr(size),
                "src": int_attr(src),
                "dst": int_attr(dst),
                "step": int_attr(step),
                "backend": StringAttr(backend),
            }
        )

    def describe(self) -> str:
        """Short human-readable identification used in diagnostics."""
        return (
            f"chunk {self.chunk_id.value.data} (tensor '{self.tensor.data}', "
            f"src {self.src.value.data}, dst {self.dst.value.data}, "
            f"offset {extent_value(self.offset)!r}, size {extent_value(self.size)!r}, "
            f"step {self.step.value.data})"
        )

    def verify_(self) -> None:
        me = self.describe()
        if self.chunk_id.value.data < 0:
            raise VerifyException(f"{me}: chunk id must be >= 0")
        if self.dim.value.data < 0:
            raise VerifyException(f"{me}: dim must be >= 0")
        if self.step.value.data < 0:
            raise VerifyException(f"{me}: step must be >= 0")
        if self.backend.data not in BACKENDS:
            raise VerifyException(
                f"{me}: unknown backend '{self.backend.data}', expected one of "
                + ", ".join(BACKENDS)
            )
        _check_extent(self.offset, f"{me}: offset")
        _check_extent(self.size, f"{me}: size")
        for name in ("offset", "size"):
            value = extent_value(getattr(self, name))
            if isinstance(value, int) and value < 0:
                raise VerifyException(f"{me}: {name} must be >= 0")
        plan = self.parent_op()
        if isinstance(plan, PlanOp):
            world = plan.world_size
            for name in ("src", "dst"):
                rank = getattr(self, name).value.data
                if not 0 <= rank < world:
                    raise VerifyException(
                        f"{me}: {name} rank {rank} is outside [0, {world})"
                    )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" id {self.chunk_id.value.data} ")
        printer.print_string_literal(self.tensor.data)
        printer.print_string(f" dim {self.dim.value.data} offset ")
        _print_extent(printer, self.offset)
        printer.print_string(" size ")
        _print_extent(printer, self.size)
        printer.print_string(
            f" src {self.src.value.data} dst {self.dst.value.data}"
            f" step {self.step.value.data} backend {self.backend.data}"
        )
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> ChunkOp:
        chunk_id = _keyword_int(parser, "id")
        tensor = parser.parse_str_literal("Expected the logical tensor name")
        dim = _keyword_int(parser, "dim")
        parser.parse_keyword("offset")
        offset = _parse_extent(parser)
        parser.parse_keyword("size")
        size = _parse_extent(parser)
        src = _keyword_int(parser, "src")
        dst = _keyword_int(parser, "dst")
        step = _keyword_int(parser, "step")
        parser.parse_keyword("backend")
        backend = parser.parse_identifier("Expected a backend: " + " | ".join(BACKENDS))
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls.create(
            properties={
                "chunk_id": chunk_id,
                "tensor": StringAttr(tensor),
                "dim": dim,
                "offset": offset,
                "size": size,
                "src": src,
                "dst": dst,
                "step": step,
                "backend": StringAttr(backend),
            }
        )
        if attrs is not None:
            op.attributes |= attrs.data
        return op


# --------------------------------------------------------------------------
# Kernel-side ops
# --------------------------------------------------------------------------


class _ChunkSyncOp(IRDLOperation):
    """Common part of chunk.wait / chunk.signal: an i32 chunk id and a plan."""

    chunk = operand_def(I32)
    plan = prop_def(SymbolRefAttr)

    def verify_(self) -> None:
        table_owner = self.parent_op()
        while table_owner is not None and not table_owner.has_trait(SymbolTable):
            table_owner = table_owner.parent_op()
        if table_owner is None:
            return  # detached kernel fragment: nothing to resolve against yet
        target = SymbolTable.lookup_symbol(self, self.plan)
        if target is None:
            raise VerifyException(
                f"'{self.name}' refers to @{self.plan.string_value()}, "
                "but no such chunk.plan is in scope"
            )
        if not isinstance(target, PlanOp):
            raise VerifyException(
                f"'{self.name}' refers to @{self.plan.string_value()}, "
                f"which is a '{target.name}', not a chunk.plan"
            )

    def _print_common(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.chunk)
        printer.print_string(" plan ")
        printer.print_attribute(self.plan)


def _parse_common(parser: Parser) -> tuple[SSAValue, SymbolRefAttr]:
    chunk = parser.parse_operand()
    parser.parse_keyword("plan")
    plan = parser.parse_attribute()
    if not isinstance(plan, SymbolRefAttr):
        parser.raise_error("Expected a symbol reference to a chunk.plan, e.g. @ag")
    return chunk, plan


def _plan_ref(plan: str | SymbolRefAttr) -> SymbolRefAttr:
    return plan if isinstance(plan, SymbolRefAttr) else SymbolRefAttr(plan)


@irdl_op_definition
class WaitOp(_ChunkSyncOp):
    """Block until chunk ``%chunk`` of ``@plan`` is present on this rank."""

    name = "chunk.wait"

    def __init__(self, chunk: SSAValue, plan: str | SymbolRefAttr):
        super().__init__(operands=[chunk], properties={"plan": _plan_ref(plan)})

    def print(self, printer: Printer) -> None:
        self._print_common(printer)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> WaitOp:
        chunk, plan = _parse_common(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(chunk, plan)
        if attrs is not None:
            op.attributes |= attrs.data
        return op


@irdl_op_definition
class SignalOp(_ChunkSyncOp):
    """This tile's part of chunk ``%chunk`` of ``@plan`` is written.

    ``count`` (default 1) is how many signals together complete the chunk,
    e.g. the number of tiles that produce it.
    """

    name = "chunk.signal"

    count = opt_prop_def(IntegerAttr)

    def __init__(self, chunk: SSAValue, plan: str | SymbolRefAttr, count: int | None = None):
        props: dict[str, Attribute] = {"plan": _plan_ref(plan)}
        if count is not None:
            props["count"] = int_attr(count)
        super().__init__(operands=[chunk], properties=props)

    def verify_(self) -> None:
        if self.count is not None and self.count.value.data < 1:
            raise VerifyException(
                f"chunk.signal count must be >= 1, got {self.count.value.data}"
            )
        super().verify_()

    def print(self, printer: Printer) -> None:
        self._print_common(printer)
        if self.count is not None:
            printer.print_string(f" count {self.count.value.data}")
        printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> SignalOp:
        chunk, plan = _parse_common(parser)
        count = None
        if parser.parse_optional_keyword("count") is not None:
            count = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(chunk, plan, count)
        if attrs is not None:
            op.attributes |= attrs.data
        return op


class _SpanSyncOp(IRDLOperation):
    """Common part of chunk.wait_span / chunk.signal_span: the index range
    ``[lo, lo + extent)`` along the plan's dim of one plan tensor, touched by
    the current tile. The chunks it means are resolved on each rank at run
    time (the runtime's chunk table), so one op covers a tile that straddles
    chunks and chunk sizes that are not multiples of the block size."""

    lo = operand_def()
    extent = operand_def()
    plan = prop_def(SymbolRefAttr)
    tensor = prop_def(StringAttr)

    assembly_format = "$lo `,` $extent `plan` $plan `tensor` $tensor attr-dict `:` type($lo) `,` type($extent)"

    def __init__(self, lo: SSAValue, extent: SSAValue, plan: str | SymbolRefAttr, tensor: str):
        super().__init__(
            operands=[lo, extent],
            properties={"plan": _plan_ref(plan), "tensor": StringAttr(tensor)},
        )

    def verify_(self) -> None:
        _ChunkSyncOp.verify_(self)  # type: ignore[arg-type]
        target = _find_plan(self)
        if target is not None and self.tensor.data not in {t.tensor.data for t in target.tensors}:
            raise VerifyException(
                f"'{self.name}': plan @{self.plan.string_value()} binds no tensor '{self.tensor.data}'"
            )


def _find_plan(op: IRDLOperation) -> PlanOp | None:
    owner = op.parent_op()
    while owner is not None and not owner.has_trait(SymbolTable):
        owner = owner.parent_op()
    if owner is None:
        return None
    target = SymbolTable.lookup_symbol(op, op.plan)  # type: ignore[attr-defined]
    return target if isinstance(target, PlanOp) else None


@irdl_op_definition
class WaitSpanOp(_SpanSyncOp):
    """Block until every chunk of ``tensor`` that overlaps ``[lo, lo+extent)``
    along the plan's dim is present on this rank."""

    name = "chunk.wait_span"


@irdl_op_definition
class WaitSpanLoopOp(IRDLOperation):
    """``chunk.wait_span`` at the top of a loop body whose iteration ``i``
    waits for ``[first + i*step, first + i*step + extent)``: a chunk that
    also overlapped the previous iteration's range was present then and
    stays present, so only chunks starting at or after that range's end are
    checked. The first iteration (``lo == first``), and every iteration of a
    loop with ``step <= 0``, checks every chunk of its range."""

    name = "chunk.wait_span_loop"

    lo = operand_def()
    extent = operand_def()
    first = operand_def()
    step = operand_def()
    plan = prop_def(SymbolRefAttr)
    tensor = prop_def(StringAttr)

    assembly_format = (
        "$lo `,` $extent `first` $first `step` $step `plan` $plan `tensor` $tensor attr-dict `:` "
        "type($lo) `,` type($extent) `,` type($first) `,` type($step)"
    )

    def __init__(self, lo: SSAValue, extent: SSAValue, first: SSAValue, step: SSAValue, plan: str | SymbolRefAttr,
                 tensor: str):
        super().__init__(
            operands=[lo, extent, first, step],
            properties={"plan": _plan_ref(plan), "tensor": StringAttr(tensor)},
        )

    verify_ = _SpanSyncOp.verify_


@irdl_op_definition
class SignalSpanOp(_SpanSyncOp):
    """This tile has written its part ``[lo, lo+extent)`` of ``tensor``: add one
    to the counter of every chunk of this rank that overlaps the range. The
    runtime knows how many tiles touch each chunk and announces the chunk
    when its counter reaches that number."""

    name = "chunk.signal_span"


@irdl_op_definition
class ReduceSpanOp(IRDLOperation):
    """The tile ``%value`` that this tile is about to store at rows ``[lo,
    lo+extent)`` and columns ``[col, col+col_extent)`` of the reduce-scattered
    ``tensor`` (both extents are the tile's block sizes, constexprs),
    plus every other rank's partial of those of its rows that this rank
    owns, each added once its arrival is signalled: the owner's reduction
    done in the tile's epilogue instead of after the kernel. Rows this rank
    does not own pass through unchanged (their owner reduces them)."""

    name = "chunk.reduce_span"

    value = operand_def()
    lo = operand_def()
    extent = operand_def()
    col = operand_def()
    col_extent = operand_def()
    plan = prop_def(SymbolRefAttr)
    tensor = prop_def(StringAttr)
    result = result_def()

    assembly_format = (
        "$value `rows` $lo `,` $extent `cols` $col `,` $col_extent `plan` $plan `tensor` $tensor attr-dict `:` "
        "type($value) `,` type($lo) `,` type($extent) `,` type($col) `,` type($col_extent) `->` type($result)"
    )

    def __init__(self, value: SSAValue, lo: SSAValue, extent: SSAValue, col: SSAValue, col_extent: SSAValue,
                 plan: str | SymbolRefAttr, tensor: str, result_type: Attribute):
        super().__init__(
            operands=[value, lo, extent, col, col_extent],
            properties={"plan": _plan_ref(plan), "tensor": StringAttr(tensor)},
            result_types=[result_type],
        )

    def verify_(self) -> None:
        _SpanSyncOp.verify_(self)  # type: ignore[arg-type]
        target = _find_plan(self)
        if target is not None and target.collective != "reduce-scatter":
            raise VerifyException(
                f"'{self.name}': plan @{self.plan.string_value()} is a {target.collective}, not a reduce-scatter"
            )


@irdl_op_definition
class PushReduceOp(IRDLOperation):
    """The sum over every rank of the tile ``%value`` that this tile is
    about to store through ``%ptrs`` (under ``%mask``) into the all-reduced
    ``tensor``: the tile pushes ``%value`` to the same elements of each
    peer's staging slot for this rank, announces it, waits for every peer's
    partial of the same tile, and adds the W partials in rank order (so
    every rank gets the same bits). push-all-reduce places it; the store
    that follows stores its result."""

    name = "chunk.push_reduce"

    value = operand_def()
    ptrs = operand_def()
    mask = opt_operand_def()
    plan = prop_def(SymbolRefAttr)
    tensor = prop_def(StringAttr)
    result = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$value `at` $ptrs (`mask` $mask^ `:` type($mask))? `plan` $plan `tensor` $tensor attr-dict `:` "
        "type($value) `,` type($ptrs) `->` type($result)"
    )

    def __init__(self, value: SSAValue, ptrs: SSAValue, mask: SSAValue | None, plan: str | SymbolRefAttr,
                 tensor: str, result_type: Attribute):
        super().__init__(
            operands=[value, ptrs, [mask] if mask is not None else []],
            properties={"plan": _plan_ref(plan), "tensor": StringAttr(tensor)},
            result_types=[result_type],
        )

    def verify_(self) -> None:
        _SpanSyncOp.verify_(self)  # type: ignore[arg-type]
        target = _find_plan(self)
        if target is not None and target.collective != "all-reduce":
            raise VerifyException(
                f"'{self.name}': plan @{self.plan.string_value()} is a {target.collective}, not an all-reduce"
            )


Chunk = Dialect("chunk", [PlanOp, TensorOp, ChunkOp, WaitOp, SignalOp, WaitSpanOp, WaitSpanLoopOp, SignalSpanOp,
                          ReduceSpanOp, PushReduceOp], [])
