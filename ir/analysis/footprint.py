"""Symbolic footprints of tile-IR memory accesses.

For a ``tile.load`` / ``tile.store`` / ``tile.atomic_*`` whose pointer is
``param + idx_0[:, None] * s_0 + idx_1[None, :] * s_1 + ...`` (any order and
nesting of ``+``, unit strides allowed, ``tile.broadcast`` / ``tile.retype``
looked through; scalar terms ``x * s`` that move the whole tile, e.g. a
head offset ``head * stride_h``, are kept as :class:`Offset`), and for ``tile.desc_load`` / ``tile.desc_store`` on a
descriptor made from ``param``, :func:`access_of` finds the base parameter and,
per block axis, the index and its stride. A descriptor made on the host (a
``TensorDescriptor`` parameter) spans ``desc.block_shape[d]`` along dim ``d``:
``tile.desc_block_size`` ops at the top of the kernel (:func:`host_block_sizes`),
a launch symbol on the host (:func:`descriptor_block_symbol`). :func:`span_of` turns an index of
the form ``scalar + ... + tl.arange(0, B)`` into the half-open range
``[lo, lo + B)`` one tile touches: ``lo`` is an SSA scalar (so the kernel can
compute it at run time, even when it is loaded from memory) and, where it is
affine in program ids, parameters and constants, also a Python expression the
host can evaluate (:func:`host_expr`).

Anything else is *unbounded*: callers report it instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, i32, i64
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import Pure

from syncopate.dialects import tile
from syncopate.ir.analysis import helper_rows, loaded_rows
from syncopate.ir.analysis.ssa_walk import results_reached


class Unbounded(Exception):
    """An access whose footprint this analysis cannot bound; the message says why."""


class LoadedRows(Unbounded):
    """An index (or what is left of it after its scalar terms) computed from
    loaded data, e.g. row ids read from a routing table: no affine range, but
    a read's rows lie in [min, max + 1) of its values (ir/analysis/loaded_rows.py)."""

    def __init__(self, index: SSAValue):
        super().__init__("the index is not 'scalar + tl.arange(0, BLOCK)' (found rows read from memory); "
                         "only a load can gather rows from a table: store to rows computed from the program id")
        self.index = index


@dataclass(frozen=True)
class Term:
    """One ``index * stride`` term of an address: ``index`` varies along block
    ``axis``; ``stride`` is None for a unit stride."""

    axis: int
    index: SSAValue
    stride: SSAValue | None


@dataclass(frozen=True)
class Offset:
    """A scalar term added to every element's address: ``left * right``
    (either may be the stride), or ``left`` alone (``right`` None: unit
    stride). It moves the whole tile along the dim whose stride it holds."""

    left: SSAValue
    right: SSAValue | None
    product: SSAValue | None = None  # ``left * right`` itself


@dataclass(frozen=True)
class Carried:
    """A pointer carried through ``loop`` and advanced by the loop-invariant
    scalar ``increment`` in every iteration (``ptrs += BLOCK_K * stride_k``).
    Inside the loop, iteration ``t`` (counted from 0) accesses ``init + t *
    increment``; ``after`` marks a use of the loop's result (after the last
    iteration, ``t`` = the trip count)."""

    loop: Operation  # scf.for or scf.while
    increment: Offset
    after: bool = False


@dataclass(frozen=True)
class Access:
    """A memory access of kernel parameter ``param``."""

    op: Operation
    param: str
    role: str  # "read" or "write"
    terms: tuple[Term, ...]  # empty for descriptor accesses (see ``desc_spans``)
    desc_spans: tuple[tuple[SSAValue, SSAValue], ...] = ()  # (offset, block size) per dim
    offsets: tuple[Offset, ...] = ()  # scalar terms (whole-tile shifts)
    carried: tuple[Carried, ...] = ()  # loop-carried increments of the pointer


@dataclass(frozen=True)
class Walk:
    """A shift of ``t * shift`` along a dim in iteration ``t`` (from 0) of
    ``loop``: a loop-carried pointer advanced along that dim."""

    loop: scf.ForOp
    shift: SSAValue


@dataclass(frozen=True)
class Clamp:
    """``tl.minimum(rows, bound)`` (``upper``) or ``tl.maximum(rows, bound)``
    of a block of rows and a scalar: every row is moved to at most (at
    least) ``bound``."""

    bound: SSAValue
    upper: bool


@dataclass(frozen=True)
class Otherwise:
    """``tl.where(cond, rows, value)``: the lanes where ``cond`` fails use
    row ``value`` (a scalar). ``limit`` is ``X`` when ``cond`` is ``rows <
    X`` on the same rows: lanes fail only when the rows reach ``X``. Any
    other condition may fail on any lane."""

    value: SSAValue
    limit: SSAValue | None


@dataclass(frozen=True)
class Span:
    """``[lo, lo + extent)`` along one dim, ``lo = sum(lo_terms) -
    sum(lo_minus) + lo_const + sum(t_L * shift_L for each walk)`` where
    ``t_L`` is the iteration number of the walk's loop (:func:`lo_of` sums
    the first three); then ``clamps`` (innermost first) and ``otherwise``
    applied to those rows (see :func:`intervals`)."""

    lo_terms: tuple[SSAValue, ...]
    extent: SSAValue
    walks: tuple[Walk, ...] = ()
    wrap: SSAValue | None = None  # ``(lo + tl.arange(0, B)) % wrap``: the range taken modulo ``wrap``
    clamps: tuple[Clamp, ...] = ()
    otherwise: Otherwise | None = None
    lo_minus: tuple[SSAValue, ...] = ()  # subtracted scalars: ``offs - PAD``
    lo_const: int = 0  # 1 for a reversed range ``s - tl.arange(0, B)``: ``[s - B + 1, s + 1)``
    # the access's mask keeps only rows ``>= masked_below`` / ``< masked_from``
    # (``mask=(rows >= 0) & (rows < M)``): a read touches only
    # ``[max(lo, masked_below), min(lo + extent, masked_from))``, empty for a
    # fully masked tile. Kernel parameters or constants (see chunk_access.mask_limits), which a
    # wait anywhere in the kernel can use, so not among :meth:`values` (what the rows depend on)
    masked_below: SSAValue | None = None
    masked_from: SSAValue | None = None
    # a scalar row's address plus lengths taken for columns (``input_ptrs + d``): the host
    # expression of the columns' end and the row stride it must not pass (checked at launch)
    in_row: tuple[str, str] | None = None

    @property
    def reshaped(self) -> bool:
        """Clamped or redirected rows: :func:`intervals` gives the rows."""
        return bool(self.clamps) or self.otherwise is not None

    def values(self) -> tuple[SSAValue, ...]:
        walked = tuple(v for w in self.walks for v in (w.loop.body.block.args[0], w.shift))
        clamped = tuple(c.bound for c in self.clamps)
        other = () if self.otherwise is None else (self.otherwise.value, *(
            (self.otherwise.limit,) if self.otherwise.limit is not None else ()))
        return (*self.lo_terms, *self.lo_minus, self.extent, *walked, *((self.wrap,) if self.wrap is not None else ()),
                *clamped, *other)

    def lo_host_expr(self) -> str | None:
        if self.walks:
            return None  # depends on an iteration number
        parts = [host_expr(v) for v in self.lo_terms]
        minus = [host_expr(v) for v in self.lo_minus]
        if None in parts or None in minus:
            return None
        text = " + ".join(parts) + "".join(f" - {m}" for m in minus)  # type: ignore[operator]
        return text + (f" + {self.lo_const}" if self.lo_const > 0 else f" - {-self.lo_const}" if self.lo_const else "")


V = TypeVar("V")


class RowArith(Protocol[V]):
    """The arithmetic :func:`intervals` needs, over host expressions (for the
    ``chunk.access`` attribute) or over SSA values (for the waits the kernel
    runs): both compute the same rows from the same formulas."""

    def value(self, ssa: SSAValue) -> V: ...
    def const(self, n: int) -> V: ...
    def add(self, a: V, b: V) -> V: ...
    def sub(self, a: V, b: V) -> V: ...
    def min(self, a: V, b: V) -> V: ...
    def max(self, a: V, b: V) -> V: ...


def lo_of(span: Span, ar: RowArith[V]) -> V:
    """The span's ``lo`` without its walks: ``sum(lo_terms) - sum(lo_minus)
    + lo_const``, in the arithmetic ``ar``."""
    lo = ar.value(span.lo_terms[0])
    for term in span.lo_terms[1:]:
        lo = ar.add(lo, ar.value(term))
    for term in span.lo_minus:
        lo = ar.sub(lo, ar.value(term))
    if span.lo_const:
        lo = ar.add(lo, ar.const(span.lo_const))
    return lo


def intervals(span: Span, lo: V, ar: RowArith[V]) -> list[tuple[V, V]]:
    """The (lo, extent) ranges that hold every row of ``span`` whose
    unclamped range starts at ``lo`` (``span.wrap`` is handled by the
    callers). Exact for clamps; for ``tl.where`` an over-approximation by
    one row at most.

    Rows ``[lo, hi)`` clamped above by ``C`` are ``min(r, C)``: the
    contiguous ``[min(lo, C), min(hi, C + 1))``, and below by ``C``,
    ``[max(lo, C), max(hi, C + 1))`` (both non-empty when ``hi > lo``).
    ``tl.where(cond, rows, v)`` adds the row ``v``: ``[v, v + 1)``; when
    ``cond`` is ``rows < X``, the rows kept are ``[lo, min(hi, X))`` and
    ``v`` is used only when ``hi > X`` (its extent is then 1, else 0)."""
    hi = ar.add(lo, ar.value(span.extent))
    for clamp in span.clamps:
        bound = ar.value(clamp.bound)
        pick = ar.min if clamp.upper else ar.max
        lo, hi = pick(lo, bound), pick(hi, ar.add(bound, ar.const(1)))
    other = span.otherwise
    if other is None:
        return [(lo, ar.sub(hi, lo))]
    row = ar.value(other.value)
    if other.limit is None:
        kept = ar.sub(hi, lo) if span.clamps else ar.value(span.extent)
        return [(lo, kept), (row, ar.const(1))]
    limit = ar.value(other.limit)
    used = ar.min(ar.const(1), ar.max(ar.const(0), ar.sub(hi, limit)))
    return [(lo, ar.sub(ar.min(hi, limit), lo)), (row, used)]


class HostArith:
    """:class:`RowArith` over host expressions (None: not computable on the host)."""

    def value(self, ssa: SSAValue) -> str | None:
        return host_expr(ssa)

    def const(self, n: int) -> str:
        return str(n)

    def add(self, a: str | None, b: str | None) -> str | None:
        return None if a is None or b is None else f"({a} + {b})"

    def sub(self, a: str | None, b: str | None) -> str | None:
        return None if a is None or b is None else f"({a} - {b})"

    def min(self, a: str | None, b: str | None) -> str | None:
        return None if a is None or b is None else f"min({a}, {b})"

    def max(self, a: str | None, b: str | None) -> str | None:
        return None if a is None or b is None else f"max({a}, {b})"


def strip(value: SSAValue) -> SSAValue:
    """Look through value-preserving ops: retypes, broadcasts, and a product
    with the integer constant 1 (``stride_am * 1``, which users write to
    make a stride's type explicit)."""
    while isinstance(value, OpResult):
        op = value.op
        if isinstance(op, (tile.RetypeOp, tile.BroadcastOp)):
            value = op.src
        elif isinstance(op, tile.MulOp) and _is_one(op.rhs):
            value = op.lhs
        elif isinstance(op, tile.MulOp) and _is_one(op.lhs):
            value = op.rhs
        else:
            break
    return value


def _is_one(value: SSAValue) -> bool:
    """Whether ``value`` is the integer constant 1 (through retypes)."""
    while isinstance(value, OpResult) and isinstance(value.op, tile.RetypeOp):
        value = value.op.src
    return (isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp)
            and isinstance(value.op.value, IntegerAttr) and value.op.value.value.data == 1)


HINTS = ("tl.multiple_of", "tl.max_contiguous", "tl.max_constancy")


def _unhinted(value: SSAValue) -> SSAValue:
    """Look through value-preserving ops, compiler hints
    (``tl.max_contiguous(tl.multiple_of(offs, B), B)`` is ``offs``) and
    widening casts of an index (``offs.to(tl.int64)``, which Liger and
    FlagGems write against int32 overflow: every integer keeps its value in
    int64; a narrowing or bit cast could change it, and is not looked
    through)."""
    value = strip(value)
    while isinstance(value, OpResult):
        op = value.op
        if isinstance(op, tile.CallOp) and op.callee.data in HINTS:
            value = strip(op.arguments[0])
        elif isinstance(op, tile.CastOp) and op.dtype == i64 and not (op.bitcast is not None and op.bitcast.value.data):
            value = strip(op.src)
        else:
            break
    return value


def param_name(value: SSAValue) -> str | None:
    """The kernel parameter ``value`` is, if it is one."""
    value = strip(value)
    if isinstance(value, BlockArgument) and isinstance(value.owner.parent_op(), tile.FuncOp):
        func = value.owner.parent_op()
        assert isinstance(func, tile.FuncOp)
        return func.arg_names[value.index]
    return None


def _rank(value: SSAValue) -> int:
    """Block rank of ``value``: from its type, or for ``!tile.any`` (values the
    frontend could not type, e.g. computed from a load) from the ops that
    made it."""
    if isinstance(value.type, tile.BlockType):
        return tile.rank_of(value.type)
    if not isinstance(value.type, tile.AnyValueType) or not isinstance(value, OpResult):
        return 0
    op = value.op
    if isinstance(op, tile.ArangeOp):
        return 1
    if isinstance(op, tile.ExpandDimsOp):
        return _rank(op.src) + 1
    if isinstance(op, tile.BroadcastOp):
        return len(op.shape)
    if isinstance(op, (tile.TwoOperandOp, tile.AddPtrOp, tile.CmpOp)):
        return max(_rank(v) for v in op.operands)
    if isinstance(op, (tile.RetypeOp, tile.UnaryOp, tile.CastOp)):
        return _rank(op.operands[0])
    if isinstance(op, tile.LoadOp):
        return _rank(op.ptr)
    if isinstance(op, tile.CallJitOp):
        returned = helper_rows.returned_value(value)
        return _rank(returned) if returned is not None else 0
    if isinstance(op, tile.WhereOp) or (isinstance(op, tile.CallOp) and op.callee.data in (*CLAMPS, "tl.clamp", *HINTS)):
        return max((_rank(v) for v in op.operands), default=0)
    return 0


def _is_pointer(value: SSAValue) -> bool:
    value = strip(value)
    if isinstance(value.type, tile.PointerType):
        return True
    if isinstance(value.type, tile.BlockType) and isinstance(value.type.element_type, tile.PointerType):
        return True
    if isinstance(value, OpResult) and isinstance(value.op, tile.AddPtrOp):
        return True
    if isinstance(value, OpResult) and isinstance(value.op, tile.AddOp):
        return _is_pointer(value.op.lhs) or _is_pointer(value.op.rhs)
    return False


def _sum_terms(value: SSAValue) -> list[SSAValue]:
    """Split an offset into its ``index * stride`` terms: a sum of two blocks
    is split, a block plus a scalar (``pid * B + tl.arange(0, B)``) is one
    unit-stride index."""
    value = _widened_scalar(strip(value))
    if isinstance(value, OpResult) and isinstance(value.op, tile.AddOp):
        lhs, rhs = value.op.lhs, value.op.rhs
        if _rank(lhs) >= 1 and _rank(rhs) >= 1:
            return _sum_terms(lhs) + _sum_terms(rhs)
        if _rank(value) == 0 and _rank(lhs) == 0 and _rank(rhs) == 0:
            # a batch and head offset summed first (`qvk_offset = off_z * stride_qz + off_h *
            # stride_qh`, the attention tutorial's): each product moves along its own dim
            return _sum_terms(lhs) + _sum_terms(rhs)
        # `row * stride + cols` added at once is `+ row * stride + cols`: a row offset
        # times a runtime stride moves whole rows, it is no part of the unit-stride index
        for scalar, block in ((lhs, rhs), (rhs, lhs)):
            if _rank(scalar) == 0 and _rank(block) >= 1 and _is_row_offset(scalar):
                return [scalar, *_sum_terms(block)]
    return [value]


def _widened_scalar(value: SSAValue) -> SSAValue:
    """A scalar sum or product widened to int64 as a whole
    (``(off_z * stride_z + off_h * stride_h).to(tl.int64)``) is that sum:
    a widening cast keeps every integer's value."""
    while (isinstance(value, OpResult) and isinstance(value.op, tile.CastOp) and _rank(value) == 0
           and _widens_integer(value.op) and isinstance(strip(value.op.src), OpResult)
           and isinstance(strip(value.op.src).op, (tile.AddOp, tile.MulOp))):
        value = strip(value.op.src)
    return value


def _is_row_offset(value: SSAValue) -> bool:
    """``x * s`` with ``s`` a runtime (not constexpr) scalar kernel parameter."""
    value = strip(value)
    if not (isinstance(value, OpResult) and isinstance(value.op, tile.MulOp)):
        return False
    return any(param_name(f) is not None and isinstance(strip(f).type, tile.ScalarType)
               for f in (value.op.lhs, value.op.rhs))


def _axis_of(index: SSAValue, rank: int) -> tuple[int, SSAValue]:
    """(block axis, 1-D index) of an index broadcast into a rank-``rank`` block."""
    index = strip(index)
    if rank <= 1:
        return 0, index
    if isinstance(index, OpResult) and isinstance(index.op, tile.ExpandDimsOp) and _rank(index.op.src) == 1 and rank == 2:
        return 1 - index.op.axis.value.data, strip(index.op.src)
    axis = _expanded_axis(index) if rank == 2 and loaded_rows.reads_memory(index) else None
    if axis is not None:
        return axis, index  # loaded ids computed on after expanding (`ids[:, None] // top_k`): bounded as a whole
    raise Unbounded("an index of a 2-D access is not a 1-D index expanded with [:, None] or [None, :]")


def _expanded_axis(index: SSAValue) -> int | None:
    """The block axis of a 2-D index computed elementwise from 1-D values
    all expanded along the same axis (and scalars), None otherwise."""
    axes: set[int] = set()
    work, seen = [index], set()
    while work:
        value = strip(work.pop())
        if value in seen or _rank(value) == 0:
            continue
        seen.add(value)
        if not isinstance(value, OpResult) or value.op.regions or not value.op.has_trait(Pure):
            return None
        if isinstance(value.op, tile.ExpandDimsOp) and _rank(value.op.src) == 1:
            axes.add(1 - value.op.axis.value.data)
        elif isinstance(value.op, (tile.ExpandDimsOp, tile.BroadcastOp, tile.TransOp, tile.ReduceOp, tile.DotOp)):
            return None
        else:
            work.extend(value.op.operands)
    return axes.pop() if len(axes) == 1 else None


def _term(value: SSAValue, rank: int) -> Term:
    value = strip(value)
    if isinstance(value, OpResult) and isinstance(value.op, tile.MulOp):
        lhs, rhs = value.op.lhs, value.op.rhs
        if _rank(lhs) >= 1 and _rank(rhs) == 0:
            axis, index = _axis_of(lhs, rank)
            return Term(axis, index, rhs)
        if _rank(rhs) >= 1 and _rank(lhs) == 0:
            axis, index = _axis_of(rhs, rank)
            return Term(axis, index, lhs)
        what = "two blocks" if _rank(lhs) and _rank(rhs) else "two scalars"
        raise Unbounded(f"an address term multiplies {what} (not index * stride)")
    if _rank(value) == 0:
        raise Unbounded("a scalar offset is added to the base pointer")
    axis, index = _axis_of(value, rank)
    return Term(axis, index, None)


PointerTerms = tuple[str | None, list[SSAValue], list[tuple[Operation, int, bool]]]


def _pointer_terms(ptr: SSAValue) -> PointerTerms:
    """(base parameter, offset terms, the loops that carry it: (loop, index, after))."""
    ptr = strip(ptr)
    if isinstance(ptr, OpResult) and isinstance(ptr.op, tile.AddPtrOp):
        base, offsets, carried = _pointer_terms(ptr.op.ptr)
        return base, offsets + _sum_terms(ptr.op.offset), carried
    if isinstance(ptr, OpResult) and isinstance(ptr.op, tile.AddOp):
        # `p + a + b` where the frontend could not type `p + a` as a pointer
        lhs, rhs = ptr.op.lhs, ptr.op.rhs
        if _is_pointer(rhs) and not _is_pointer(lhs):
            lhs, rhs = rhs, lhs
        if _is_pointer(lhs):
            base, offsets, carried = _pointer_terms(lhs)
            return base, offsets + _sum_terms(rhs), carried
    carried_through = _loop_carried(ptr)
    if carried_through is not None:
        loop, index, after = carried_through
        base, offsets, carried = _pointer_terms(_loop_init(loop, index))
        if base is None:
            return None, [], []
        return base, offsets, carried + [carried_through]
    return param_name(ptr), [], []


def _loop_carried(value: SSAValue) -> tuple[Operation, int, bool] | None:
    """(loop, index of the carried value, used after the loop) when ``value``
    is a loop's iter arg inside its body, or the loop's result."""
    if isinstance(value, BlockArgument):
        loop = value.owner.parent_op()
        if isinstance(loop, scf.ForOp) and value.index >= 1:
            return loop, value.index - 1, False
        if isinstance(loop, scf.WhileOp):
            return loop, value.index, False
        return None
    if isinstance(value, OpResult) and isinstance(value.op, (scf.ForOp, scf.WhileOp)):
        return value.op, value.index, True
    return None


def _loop_init(loop: Operation, index: int) -> SSAValue:
    return loop.iter_args[index] if isinstance(loop, scf.ForOp) else loop.operands[index]  # type: ignore[attr-defined]


def _increments(loop: Operation, index: int) -> list[SSAValue]:
    """The scalar steps ``s`` of ``ptrs += s`` (one per augmented assignment)
    that the body of ``loop`` adds to carried pointer ``index``; raises
    :class:`Unbounded` unless the yielded pointer is the iter arg plus
    loop-invariant scalars."""
    if isinstance(loop, scf.ForOp):
        arg, body = loop.body.block.args[index + 1], loop.body.block
    else:
        assert isinstance(loop, scf.WhileOp)
        before, body = loop.before_region.block, loop.after_region.block
        condition = before.last_op
        if not isinstance(condition, scf.ConditionOp) or list(condition.args) != list(before.args):
            raise Unbounded("a pointer carried through a while loop whose condition reorders its values")
        arg = body.args[index]
    terminator = body.last_op
    assert isinstance(terminator, scf.YieldOp)
    value = strip(terminator.arguments[index])
    steps: list[SSAValue] = []
    while isinstance(value, OpResult):
        if isinstance(value.op, tile.AddPtrOp):
            steps.append(value.op.offset)
            value = strip(value.op.ptr)
        elif isinstance(value.op, tile.AddOp) and (strip(value.op.lhs) is arg or _is_pointer(value.op.lhs)):
            # `ptrs + step` where the frontend typed the carried pointer as !tile.any
            steps.append(value.op.rhs)  # type: ignore[union-attr]
            value = strip(value.op.lhs)  # type: ignore[union-attr]
        else:
            break
    if value is not arg:
        raise Unbounded("a loop-carried pointer is replaced in the loop by something other than itself plus a step "
                        "(write `ptrs += step`)")
    for step in steps:
        if _rank(step) != 0:
            raise Unbounded("a loop-carried pointer is advanced by a block, not a scalar step")
        if not is_loop_invariant(step, loop):
            raise Unbounded("a loop-carried pointer is advanced by a step computed inside the loop "
                            "(compute the step before the loop)")
    return steps[::-1]


def descriptor_block_symbol(param: str, dim: int) -> str:
    """The host symbol of the block size along ``dim`` of the descriptor
    parameter ``param``: a launch binds it from the ``TensorDescriptor`` it
    passes (runtime/descriptors.py)."""
    return f"{param}__block_shape_{dim}"


def top_block_sizes(desc: BlockArgument) -> dict[int, SSAValue]:
    """dim -> the first ``tile.desc_block_size`` of host descriptor ``desc``
    along it among the ops at the top of its kernel's body (before any
    region op, so it dominates every access and wait)."""
    sizes: dict[int, SSAValue] = {}
    for op in desc.owner.ops:
        if op.regions:
            break
        if isinstance(op, tile.DescriptorBlockSizeOp) and op.desc is desc:
            sizes.setdefault(op.dim.value.data, op.res)
    return sizes


def host_block_sizes(desc: BlockArgument) -> tuple[SSAValue, ...] | None:
    """The block size of host descriptor ``desc`` along each dim
    (:func:`top_block_sizes`); None when a dim has none
    (chunk-dependency-analysis adds them)."""
    sizes = top_block_sizes(desc)
    rank = desc.type.rank.data  # type: ignore[attr-defined]
    return tuple(sizes[d] for d in range(rank)) if len(sizes) == rank else None


def access_of(op: Operation, params: set[str] | None = None) -> Access | None:
    """The :class:`Access` of a memory op, None for other ops, a pointer that
    is not rooted at a kernel parameter or one not in ``params``; raises
    :class:`Unbounded` for an access rooted at such a parameter whose address
    has another form."""
    if isinstance(op, (tile.DescriptorLoadOp, tile.DescriptorStoreOp)):
        desc = strip(op.desc)
        host = param_name(desc)
        if host is not None and (params is None or host in params):
            assert isinstance(desc, BlockArgument)
            sizes = host_block_sizes(desc)
            if sizes is None:
                raise Unbounded(f"the block shape of '{host}', a tensor descriptor made on the host, is not bound "
                                "(run chunk-dependency-analysis, which binds it to the launch's TensorDescriptor)")
            role = "read" if isinstance(op, tile.DescriptorLoadOp) else "write"
            return Access(op, host, role, (), tuple(zip(op.offsets, sizes)))
        if not (isinstance(desc, OpResult) and isinstance(desc.op, tile.MakeTensorDescriptorOp)):
            return None
        param = param_name(desc.op.base)
        if param is None or (params is not None and param not in params):
            return None
        role = "read" if isinstance(op, tile.DescriptorLoadOp) else "write"
        spans = tuple(zip(op.offsets, desc.op.block_shape))
        return Access(op, param, role, (), spans)
    if isinstance(op, tile.LoadOp):
        role = "read"
    elif isinstance(op, tile.StoreOp):
        role = "write"
    elif isinstance(op, (tile.AtomicRMWOp, tile.AtomicCASOp)):
        role = "write"
    else:
        return None
    param, offsets, carried = _pointer_terms(op.ptr)
    if param is None or (params is not None and param not in params):
        return None
    call = unmodelled_call(op.ptr)
    if call is not None:
        raise Unbounded(
            f"access of '{param}': its address calls `{call.callee.data}`, which this analysis does not model and "
            "whose result may be a block (not a scalar offset); compute the "
            "address from `tl.arange`, `tl.program_id`, scalars and the supported clamps and `tl.where`"
        )
    rank = _rank(op.ptr)
    scalars = tuple(_offset(v) for v in offsets if _rank(v) == 0)
    try:
        terms = tuple(_term(v, rank) for v in offsets if _rank(v) != 0)
        steps = tuple(Carried(loop, _offset(inc), after) for loop, index, after in carried
                      for inc in _increments(loop, index))
    except Unbounded as err:
        raise Unbounded(f"access of '{param}': {err}") from None
    return Access(op, param, role, terms, offsets=scalars, carried=steps)


def unmodelled_call(ptr: SSAValue) -> tile.CallOp | None:
    """The first ``tile.call`` in the address ``ptr`` whose callee the analysis
    does not model and whose result is not known to be a scalar
    (``tl.zeros_like(rows)``, ``tl.math.abs(offs)``), None when there is none.
    A call typed as a scalar (``tl.abs(num_m - first_m)``) is a scalar offset
    whose host value is unknown (``"?"``: the tile waits for every chunk).
    Loaded values end the walk (their rows are bounded as
    loaded rows), and so does the condition of a ``tl.where`` (an
    unrecognised condition only widens the rows)."""
    def follow(value: OpResult) -> tuple[SSAValue, ...]:
        op = value.op
        if isinstance(op, (tile.LoadOp, tile.DescriptorLoadOp)) or op.regions:
            return ()
        return (op.true_value, op.false_value) if isinstance(op, tile.WhereOp) else tuple(op.operands)

    for value in results_reached(ptr, follow):
        op = value.op
        if isinstance(op, tile.CallOp) and op.callee.data not in MODELLED_CALLS and tile.rank_of(value.type) != 0:
            return op
    return None


def _offset(value: SSAValue) -> Offset:
    value = _widened_scalar(strip(value))
    if isinstance(value, OpResult) and isinstance(value.op, tile.MulOp):
        return Offset(value.op.lhs, value.op.rhs, value)
    return Offset(value, None)


def span_of(index: SSAValue) -> Span:
    """``[lo, lo + B)`` of an index ``scalar + ... + tl.arange(0, B)``,
    where scalars may also be subtracted (``offs - PAD``: ``lo - PAD``,
    kept in ``lo_minus``) and the range itself may be (``s - tl.arange(0,
    B)``: the rows ``s - B + 1 .. s``, ``lo = s - B + 1``); of
    ``(scalar + ... + tl.arange(0, B)) % M`` (the tutorial's ``offs_am``),
    the same range with ``wrap = M``: the rows ``(lo + i) % M``, which for
    ``lo >= 0`` are ``[lo % M, ...)`` continued from row 0 past ``M``.
    Value hints (``tl.multiple_of``, ``tl.max_contiguous``) are looked through.
    Clamps of such an index by a scalar (``tl.minimum(offs, M - 1)``,
    ``tl.maximum``, ``tl.clamp``) and ``tl.where(cond, offs, scalar)`` give
    the same range with :class:`Clamp` / :class:`Otherwise` (see
    :func:`intervals`)."""
    index = _unhinted(index)
    if isinstance(index, OpResult) and isinstance(index.op, tile.CallJitOp):
        return _helper_span(index)
    if isinstance(index, OpResult) and isinstance(index.op, tile.ModOp) and _rank(index.op.rhs) == 0:
        inner = span_of(index.op.lhs)
        if inner.wrap is not None:
            raise Unbounded("the index is wrapped twice (`(... % M) % N`)")
        if inner.reshaped:
            raise Unbounded("the index is clamped and then wrapped with `%`; wrap first, then clamp")
        if inner.lo_minus or inner.lo_const:
            # Triton's `%` keeps the sign of a negative row, which the two-range model does not cover
            raise Unbounded("the index subtracts a scalar or `tl.arange` and is then wrapped with `%`; "
                            "wrap an index that adds only (`(start + tl.arange(0, B)) % M`)")
        return replace(inner, wrap=index.op.rhs)
    reshaped = _reshaped(index)
    if reshaped is not None:
        return reshaped
    # rows = sum(plus) - sum(minus) + sign * (the rest of the index)
    plus: list[SSAValue] = []
    minus: list[SSAValue] = []
    sign = 1
    while True:
        if isinstance(index, OpResult) and isinstance(index.op, tile.ArangeOp):
            start = _const(index.op.start)
            if start != 0:
                raise Unbounded("tl.arange must start at 0 for its range to be bounded")
            terms = tuple(plus) or (index.op.start,)
            if sign > 0:
                return Span(terms, index.op.end, lo_minus=tuple(minus))
            # `s - tl.arange(0, B)`: rows s, s - 1, ..., s - B + 1
            return Span(terms, index.op.end, lo_minus=(*minus, index.op.end), lo_const=1)
        if isinstance(index, OpResult) and isinstance(index.op, tile.CallJitOp) and sign > 0:
            inner = _helper_span(index)  # `helper(...) + shift`: the helper's rows, moved
            return replace(inner, lo_terms=(*plus, *inner.lo_terms), lo_minus=(*minus, *inner.lo_minus))
        if isinstance(index, OpResult) and isinstance(index.op, (tile.AddOp, tile.SubOp)):
            lhs, rhs = index.op.lhs, index.op.rhs
            subtract = isinstance(index.op, tile.SubOp)
            if _rank(lhs) == 0 and _rank(rhs) >= 1:
                (plus if sign > 0 else minus).append(lhs)
                sign = -sign if subtract else sign
                index = _unhinted(rhs)
                continue
            if _rank(rhs) == 0 and _rank(lhs) >= 1:
                (plus if (sign > 0) != subtract else minus).append(rhs)
                index = _unhinted(lhs)
                continue
        what = index.op.name if isinstance(index, OpResult) else "a block argument"
        if isinstance(index, OpResult) and loaded_rows.reads_memory(index):
            raise LoadedRows(index)
        raise Unbounded(f"the index is not 'scalar + tl.arange(0, BLOCK)' (found {what}){_branch_hint(index)}")


def _branch_hint(index: SSAValue) -> str:
    """Why an index that an ``if`` chooses has no bounded form, when an arm
    clamps it: the clamp crossed the branch as a whole block (the frontend
    carries only ``start + tl.arange(0, B)`` as its start), so the rewrite
    that fuses clamps where the access is."""
    if not (isinstance(index, OpResult) and isinstance(index.op, scf.IfOp)):
        return ""
    for region in index.op.regions:
        last = region.block.last_op
        if not isinstance(last, scf.YieldOp):
            continue
        value = _unhinted(last.operands[index.index])
        clamped = isinstance(value, OpResult) and (isinstance(value.op, tile.WhereOp) or (
            isinstance(value.op, tile.CallOp) and value.op.callee.data in (*CLAMPS, "tl.clamp")))
        if clamped:
            return ("; an arm of this `if` clamps the index block (`tl.where`, `tl.minimum`, `tl.maximum`), which "
                    "leaves the `if` as a whole block: set only the start in the branch "
                    "(`offs = start + tl.arange(0, B)`) and clamp where the access is")
    return ""


def _helper_span(result: OpResult) -> Span:
    """The span of rows a jit helper returns (``rows = tile_rows(pid_m,
    BLOCK_M)``): bounded in the helper's body, its scalars carried into the
    kernel (ir/analysis/helper_rows.py). Only the plain form ``start +
    tl.arange(0, B)`` (starts added or subtracted) is carried."""
    returned = helper_rows.returned_value(result)
    call = result.op
    assert isinstance(call, tile.CallJitOp)
    if returned is None:
        raise Unbounded(f"the index comes from jit helper '{call.callee.string_value()}', which returns more than "
                        "once; return the rows at the helper's end")
    inner = span_of(returned)
    if inner.walks or inner.wrap is not None or inner.clamps or inner.otherwise is not None:
        raise Unbounded(f"the rows jit helper '{call.callee.string_value()}' returns are wrapped, clamped or "
                        "chosen by tl.where; compute them in the kernel, or return only `start + tl.arange(0, B)`")
    try:
        carried = helper_rows.carry_into_caller([*inner.lo_terms, *inner.lo_minus, inner.extent], call)
    except helper_rows.NotCarried as err:
        raise Unbounded(str(err)) from None
    terms, rest = carried[:len(inner.lo_terms)], carried[len(inner.lo_terms):]
    return replace(inner, lo_terms=tuple(terms), lo_minus=tuple(rest[:-1]), extent=rest[-1])


CLAMPS = {"tl.minimum": True, "tl.maximum": False}
# calls the address analysis models (clamps, hints, the host's min/max); any other
# call in the address of a planned tensor is refused (:func:`unmodelled_call`)
MODELLED_CALLS = frozenset((*CLAMPS, "tl.clamp", *HINTS, "min", "max"))


def _reshaped(index: SSAValue) -> Span | None:
    """The span of a clamp or a ``tl.where`` of a bounded index, None when
    ``index`` is neither."""
    if not isinstance(index, OpResult):
        return None
    op = index.op
    if isinstance(op, tile.CallOp) and op.callee.data in (*CLAMPS, "tl.clamp"):
        if op.kwarg_names and any(k.data != "propagate_nan" for k in op.kwarg_names):
            raise Unbounded(f"`{op.callee.data}` of the index has keyword arguments this analysis does not model")
        count = 3 if op.callee.data == "tl.clamp" else 2
        args = list(op.arguments)[:count]
        blocks = [a for a in args if _rank(a) >= 1]
        if len(args) != count or len(blocks) != 1 or (op.callee.data == "tl.clamp" and blocks[0] is not args[0]):
            raise Unbounded(f"`{op.callee.data}` of the index needs one block of rows and scalar bounds "
                            f"(e.g. `tl.minimum(offs, M - 1)`)")
        inner = _clampable(span_of(blocks[0]), op.callee.data)
        if op.callee.data == "tl.clamp":
            added = (Clamp(args[1], upper=False), Clamp(args[2], upper=True))
        else:
            added = (Clamp(next(a for a in args if a is not blocks[0]), upper=CLAMPS[op.callee.data]),)
        return replace(inner, clamps=inner.clamps + added)
    if isinstance(op, tile.WhereOp):
        rows_true = _rank(op.true_value) >= 1
        rows, value = (op.true_value, op.false_value) if rows_true else (op.false_value, op.true_value)
        if _rank(value) != 0 or _rank(rows) == 0:
            raise Unbounded("`tl.where` of the index needs one block of rows and a scalar for the other lanes "
                            "(e.g. `tl.where(offs < M, offs, 0)`)")
        inner = _clampable(span_of(rows), "tl.where")
        limit = _limit_of(op.cond, rows) if rows_true else None
        return replace(inner, otherwise=Otherwise(value, limit))
    return None


def _clampable(inner: Span, what: str) -> Span:
    if inner.wrap is not None:
        raise Unbounded(f"`{what}` of an index wrapped with `%`; use one of them")
    if inner.otherwise is not None and what == "tl.where":
        raise Unbounded("the index goes through `tl.where` twice; combine the conditions in one `tl.where`")
    if inner.otherwise is not None:
        raise Unbounded(f"`{what}` of the result of `tl.where`; clamp before `tl.where`")
    return inner


def _limit_of(cond: SSAValue, rows: SSAValue) -> SSAValue | None:
    """``X`` when ``cond`` is ``rows < X`` (or ``X > rows``) with a scalar ``X``."""
    cond = strip(cond)
    if not (isinstance(cond, OpResult) and isinstance(cond.op, tile.CmpOp)):
        return None
    op, rows = cond.op, _unhinted(rows)
    predicate = op.predicate.data
    if predicate == "lt" and _unhinted(op.lhs) is rows and _rank(op.rhs) == 0:
        return op.rhs
    if predicate == "gt" and _unhinted(op.rhs) is rows and _rank(op.lhs) == 0:
        return op.lhs
    return None


def _const(value: SSAValue) -> int | None:
    value = strip(value)
    if isinstance(value, OpResult) and isinstance(value.op, arith.ConstantOp):
        attr = value.op.value
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


# calls a host expression may make (``min(num_m - first_m, GROUP_M)``, ``cdiv(M, BLOCK_M)``, ``int64(pid0)``, a
# widening cast); deps.eval_host evaluates them, and ``//`` / ``%``, as the device does
_HOST_CALLEES = {"min": "min", "max": "max", "tl.minimum": "min", "tl.maximum": "max"}
_HOST_OPS = {tile.AddOp: "+", tile.SubOp: "-", tile.MulOp: "*", tile.FloorDivOp: "//", tile.ModOp: "%"}


def tile_loop(kernel: tile.FuncOp) -> scf.ForOp | None:
    """The persistent tile loop of ``kernel``, if it has one: a top-level
    ``for tile in range(tl.program_id(0), count, step)`` whose step is
    ``tl.num_programs(0)`` or a kernel parameter (the program count the
    launcher passes, e.g. the number of SMs), whose count is a host
    expression, and whose lower bound is the kernel's only program id. Each
    iteration computes the tile ``tile`` of a logical 1-D grid of ``count``
    tiles, so the analysis treats the loop variable as that grid's ``pid0``
    (see :func:`host_expr`) and the runtime orders tiles over that grid."""
    pids = [o for o in kernel.walk() if isinstance(o, tile.ProgramIdOp)]
    if len(pids) != 1 or pids[0].axis.value.data != 0:
        return None
    for op in kernel.body.block.ops:
        if not isinstance(op, scf.ForOp) or _host(op.lb) != "pid0":
            continue
        step = _host(op.step)
        if (step == "num_programs0" or param_name(op.step) is not None) and _host(op.ub) is not None:
            return op
    return None


def _tile_loop_variable(value: SSAValue) -> bool:
    """``value`` is the induction variable of its kernel's tile loop."""
    if not isinstance(value, BlockArgument) or value.index != 0:
        return False
    loop = value.owner.parent_op()
    func = loop.parent_op() if isinstance(loop, scf.ForOp) else None
    return isinstance(func, tile.FuncOp) and tile_loop(func) is loop


def host_expr(value: SSAValue) -> str | None:
    """A Python expression of ``value`` over ``pid0..2``, ``num_programs0..2``,
    kernel parameters and ints (``+ - * // %`` with Triton's meaning: ``//``
    and ``%`` truncate toward zero, as :func:`deps.eval_host` evaluates them;
    ``cdiv(a, b)``, Triton's ``(a + (b - 1)) // b``; ``int64(x)``, a widening
    cast; two-argument ``min``/``max``); None when it depends on loaded data, a loop
    variable or an op outside this small affine-like language. The
    induction variable of a persistent tile loop (:func:`tile_loop`) is
    ``pid0``: the tile's id in the loop's logical grid."""
    if _tile_loop_variable(strip(value)):
        return "pid0"
    return _host(value)


def _host(value: SSAValue) -> str | None:
    value = strip(value)
    if (name := param_name(value)) is not None:
        return name
    const = _const(value)
    if const is not None:
        return str(const)
    if not isinstance(value, OpResult):
        return None
    op = value.op
    if isinstance(op, tile.ProgramIdOp):
        return f"pid{op.axis.value.data}"
    if isinstance(op, tile.CastOp) and _widens_integer(op):
        src = host_expr(op.src)  # `tl.program_id(0).to(tl.int64)`: the same value, computed on in 64 bits
        return None if src is None else f"int64({src})"
    if isinstance(op, tile.NumProgramsOp):
        return f"num_programs{op.axis.value.data}"
    if isinstance(op, tile.DescriptorBlockSizeOp) and (desc := param_name(op.desc)) is not None:
        return descriptor_block_symbol(desc, op.dim.value.data)
    if isinstance(op, tile.CdivOp):
        lhs, rhs = host_expr(op.lhs), host_expr(op.rhs)
        return None if lhs is None or rhs is None else f"cdiv({lhs}, {rhs})"
    if type(op) in _HOST_OPS:
        lhs, rhs = host_expr(op.lhs), host_expr(op.rhs)  # type: ignore[attr-defined]
        if lhs is None or rhs is None:
            return None
        return f"({lhs} {_HOST_OPS[type(op)]} {rhs})"
    if isinstance(op, tile.CallOp) and op.callee.data in _HOST_CALLEES and len(op.arguments) == 2 and not op.kwarg_names:
        # Python's min/max of two scalars, e.g. a GROUP_M swizzle's last group, or
        # tl.minimum/tl.maximum of two scalars (a clamped row index)
        args = [host_expr(a) for a in op.arguments]
        return None if None in args else f"{_HOST_CALLEES[op.callee.data]}({args[0]}, {args[1]})"
    return None


def _widens_integer(op: tile.CastOp) -> bool:
    """A cast of an integer to a 64-bit integer, which keeps its value."""
    source = strip(op.src).type
    return (op.bitcast is None and op.dtype == i64
            and (source in (i32, i64) or isinstance(source, (tile.ScalarType, tile.ConstexprType))))


def defining_block(value: SSAValue) -> Block | None:
    if isinstance(value, BlockArgument):
        return value.owner
    return value.op.parent_block() if isinstance(value, OpResult) else None


def enclosing_loops(op: Operation) -> list[Operation]:
    """Loops (scf.for / scf.while) around ``op``, outermost first."""
    loops: list[Operation] = []
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, tile.FuncOp):
        if isinstance(parent, (scf.ForOp, scf.WhileOp)):
            loops.append(parent)
        parent = parent.parent_op()
    return loops[::-1]


def is_defined_inside(value: SSAValue, op: Operation) -> bool:
    """True when ``value`` is defined in a region of ``op``."""
    block = defining_block(value)
    while block is not None:
        parent = block.parent_op()
        if parent is op:
            return True
        if parent is None:
            return False
        block = parent.parent_block()
    return False


def is_loop_invariant(value: SSAValue, loop: Operation) -> bool:
    """``value`` is the same in every iteration of ``loop``: defined outside
    it, or computed inside by pure ops (no regions) from such values."""
    if not is_defined_inside(value, loop):
        return True
    if not isinstance(value, OpResult) or value.op.regions or not value.op.has_trait(Pure):
        return False
    return all(is_loop_invariant(v, loop) for v in value.op.operands)
