"""The rows one tile's block index spans along a dim.

:func:`span_of` turns an index of the form ``scalar + ... + tl.arange(0,
B)`` into the half-open range ``[lo, lo + B)`` (a :class:`Span`): ``lo`` is
an SSA scalar (so the kernel can compute it at run time, even when it is
loaded from memory) and, where it is affine in program ids, parameters and
constants, also a host expression (:mod:`~syncopate.ir.analysis.host_exprs`).
Wraps (``% M``), clamps (``tl.minimum``, ``tl.maximum``, ``tl.clamp``),
``tl.where`` and rows a jit helper returns are modelled; :func:`intervals`
gives the rows such a span holds, in host or device arithmetic
(:class:`RowArith`). Any other index raises
:class:`~syncopate.ir.analysis.unbounded.Unbounded`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from xdsl.dialects import scf
from xdsl.ir import OpResult, SSAValue

from syncopate.dialects import tile
from syncopate.ir.analysis import helper_rows, loaded_rows
from syncopate.ir.analysis.host_exprs import host_expr
from syncopate.ir.analysis.ssa_values import CLAMPS, block_rank, int_const, strip, unhinted
from syncopate.ir.analysis.unbounded import LoadedRows, Unbounded


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
    index = unhinted(index)
    if isinstance(index, OpResult) and isinstance(index.op, tile.CallJitOp):
        return _helper_span(index)
    if isinstance(index, OpResult) and isinstance(index.op, tile.ModOp) and block_rank(index.op.rhs) == 0:
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
            start = int_const(index.op.start)
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
            if block_rank(lhs) == 0 and block_rank(rhs) >= 1:
                (plus if sign > 0 else minus).append(lhs)
                sign = -sign if subtract else sign
                index = unhinted(rhs)
                continue
            if block_rank(rhs) == 0 and block_rank(lhs) >= 1:
                (plus if (sign > 0) != subtract else minus).append(rhs)
                index = unhinted(lhs)
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
        value = unhinted(last.operands[index.index])
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
        blocks = [a for a in args if block_rank(a) >= 1]
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
        rows_true = block_rank(op.true_value) >= 1
        rows, value = (op.true_value, op.false_value) if rows_true else (op.false_value, op.true_value)
        if block_rank(value) != 0 or block_rank(rows) == 0:
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
    op, rows = cond.op, unhinted(rows)
    predicate = op.predicate.data
    if predicate == "lt" and unhinted(op.lhs) is rows and block_rank(op.rhs) == 0:
        return op.rhs
    if predicate == "gt" and unhinted(op.rhs) is rows and block_rank(op.lhs) == 0:
        return op.lhs
    return None
