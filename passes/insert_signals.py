"""insert-signals: chunk.wait_span before consumers, chunk.signal_span after producers."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from xdsl.builder import Builder, InsertPoint
from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.dialects.chunk import SignalSpanOp, WaitSpanLoopOp, WaitSpanOp
from syncopate.ir.analysis import host_exprs, index_spans, loop_nesting, ssa_values
from syncopate.ir.analysis.chunk_access import BoundAccess, analyze
from syncopate.ir.analysis.manager import query
from syncopate.ir.contract import ORIGIN_ATTR
from syncopate.ir.locations import describe

ORIGIN = StringAttr("insert-signals")
WHOLE_DIM = 2**31 - 1  # extent of a hoisted wait: every chunk of the tensor (lo 0)


def _signal_after(b: BoundAccess, anchor: Operation) -> None:
    """A ``chunk.signal_span`` of the store's rows right after ``anchor``, the
    op of the store's block that holds it; refused where the rows are
    computed inside ``anchor`` (the signal could not see them)."""
    for value in b.span.values():
        if loop_nesting.is_defined_inside(value, anchor):
            raise PassFailedException(
                f"insert-signals: the row range of the store of '{b.access.param}' is computed inside "
                f"the '{anchor.name}' that holds the store; compute it before the branch"
            )
    builder = Builder(InsertPoint.after(anchor))
    lo, extent = _lo_value(b, builder), b.span.extent
    if b.span.reshaped:  # clamped rows: one range (chunk-dependency-analysis refuses a stored `tl.where`)
        [(lo, extent)] = index_spans.intervals(b.span, lo, _KernelArith(builder))
    signal = builder.insert(SignalSpanOp(lo, extent, b.plan.sym_name.data, b.tensor.tensor.data))
    signal.attributes[ORIGIN_ATTR] = ORIGIN


def _top_level_ancestor(op: Operation, func: Operation) -> Operation:
    """The ancestor of ``op`` (or ``op``) directly in ``func``'s body (any op with one region)."""
    while op.parent_op() is not func:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def _inserted(builder: Builder, op: Operation) -> SSAValue:
    builder.insert(op)
    op.attributes[ORIGIN_ATTR] = ORIGIN
    return op.results[0]


def _hoisted(value: SSAValue, loop: scf.ForOp, builder: Builder) -> SSAValue:
    """``value`` (loop-invariant, see ``loop_nesting.is_loop_invariant``) usable
    at ``builder``: a copy of its computation when the loop body computes it
    (``ptrs += 2 * BLOCK`` computes the step after the load that waits)."""
    if not loop_nesting.is_defined_inside(value, loop):
        return value
    assert isinstance(value, OpResult)
    operands = [_hoisted(v, loop, builder) for v in value.op.operands]
    clone = value.op.clone()
    for index, operand in enumerate(operands):
        clone.operands[index] = operand
    clone.results[value.index].name_hint = None
    _inserted(builder, clone)
    return clone.results[value.index]


def _iteration(loop: scf.ForOp, builder: Builder) -> SSAValue:
    """The iteration number ``(iv - lb) // step`` of ``loop`` (``iv`` when
    the loop counts from 0 by 1)."""
    iv = loop.body.block.args[0]
    if host_exprs.host_expr(loop.lb) == "0" and host_exprs.host_expr(loop.step) == "1":
        return iv
    any_type = tile.AnyValueType()
    shifted = _inserted(builder, tile.SubOp(iv, loop.lb, any_type))
    return _inserted(builder, tile.FloorDivOp(shifted, loop.step, any_type))


def _lo_value(b: BoundAccess, builder: Builder, walks: bool = True) -> SSAValue:
    """The span's lower bound as one SSA value: its terms summed, plus the
    shift of each loop-carried pointer walk (``iteration * shift``) unless
    ``walks`` is false."""
    lo = index_spans.lo_of(b.span, _KernelArith(builder))
    for walk in b.span.walks if walks else ():
        shift = _hoisted(walk.shift, walk.loop, builder)
        moved = _inserted(builder, tile.MulOp(_iteration(walk.loop, builder), shift, tile.AnyValueType()))
        lo = _inserted(builder, tile.AddOp(lo, moved, tile.AnyValueType()))
    return lo


def _masked(b: BoundAccess, lo: SSAValue, builder: Builder) -> tuple[SSAValue, SSAValue]:
    """(lo, extent) of the rows ``b`` reads: ``[max(lo, below), min(lo +
    extent, from))`` for the bounds its mask puts on them (``Span.masked_below``
    / ``masked_from``), so a fully masked tile (the grid's last, or a
    shifted index's first) waits for an empty range and a partly masked one
    for the rows it reads: a non-empty wait that meets no chunk is reported
    at run time (``syn_check_span``)."""
    below, above = (_bound(v, builder) for v in (b.span.masked_below, b.span.masked_from))
    if below is None and above is None:
        return lo, b.span.extent
    ar = _KernelArith(builder)
    hi = ar.add(lo, b.span.extent)
    lo = ar.max(lo, below) if below is not None else lo
    hi = ar.min(hi, above) if above is not None else hi
    return lo, ar.sub(hi, lo)


def _bound(value: SSAValue | None, builder: Builder) -> SSAValue | None:
    """A mask bound usable at ``builder``: a kernel parameter as it is, an
    integer constant copied there (the mask's may sit in a loop the wait is
    hoisted out of)."""
    if value is None or not isinstance(value, OpResult):
        return value
    assert isinstance(value.op, arith.ConstantOp)
    return _inserted(builder, value.op.clone())


class _KernelArith:
    """:class:`index_spans.RowArith` over SSA values: the ops are inserted at
    ``builder`` (``tl.minimum`` / ``tl.maximum`` of two scalars)."""

    def __init__(self, builder: Builder):
        self.builder = builder

    def value(self, ssa: SSAValue) -> SSAValue:
        return ssa

    def const(self, n: int) -> SSAValue:
        return _inserted(self.builder, arith.ConstantOp(IntegerAttr(n, i32)))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return _inserted(self.builder, tile.AddOp(a, b, tile.AnyValueType()))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return _inserted(self.builder, tile.SubOp(a, b, tile.AnyValueType()))

    def min(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return _inserted(self.builder, tile.CallOp("tl.minimum", [a, b], {}, {}, tile.AnyValueType()))

    def max(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return _inserted(self.builder, tile.CallOp("tl.maximum", [a, b], {}, {}, tile.AnyValueType()))


def _loop_walk(b: BoundAccess, anchor: Operation) -> tuple[scf.ForOp, SSAValue, SSAValue] | None:
    """(loop, the range's lo in its first iteration, its step per iteration)
    when the wait placed at ``anchor`` walks a loop: it sits directly in the
    body of the innermost loop that moves its range (so it runs once per
    iteration), its lo is that loop's induction variable (step: the loop's)
    or a pointer the loop advances (step: the pointer's shift) plus terms
    defined outside the loop, and its extent is defined outside too.
    ``first`` is built before the loop."""
    varying = len(b.loops) - b.invariant
    if varying == 0:
        return None
    loop = b.loops[varying - 1]
    if not isinstance(loop, scf.ForOp) or anchor.parent_op() is not loop:
        return None
    if b.span.walks:
        return _pointer_walk(b, loop)
    iv = loop.body.block.args[0]
    terms = [ssa_values.strip(t) for t in b.span.lo_terms]
    rest = [t for t, s in zip(b.span.lo_terms, terms) if s is not iv]
    outside = (*rest, *b.span.lo_minus, b.span.extent)
    if len(rest) != len(terms) - 1 or any(loop_nesting.is_defined_inside(v, loop) for v in outside):
        return None
    builder = Builder(InsertPoint.before(loop))
    first = index_spans.lo_of(replace(b.span, lo_terms=(loop.lb, *rest)), _KernelArith(builder))
    return loop, first, loop.step


def _pointer_walk(b: BoundAccess, loop: scf.ForOp) -> tuple[scf.ForOp, SSAValue, SSAValue] | None:
    """(loop, first lo, per-iteration step) of a range moved only by one
    loop-carried pointer of ``loop`` (``ptrs += BLOCK_K * stride_k``): its
    other terms and extent are defined outside the loop."""
    if len(b.span.walks) != 1 or b.span.walks[0].loop is not loop:
        return None
    if any(loop_nesting.is_defined_inside(v, loop) for v in (*b.span.lo_terms, *b.span.lo_minus, b.span.extent)):
        return None
    builder = Builder(InsertPoint.before(loop))
    first = _lo_value(b, builder, walks=False)
    return loop, first, _hoisted(b.span.walks[0].shift, loop, builder)


@dataclass(frozen=True)
class InsertSignalsPass(ModulePass):
    """Insert the synchronisation each tile needs, and nothing more.

    Assumes: the accesses of plan tensors are boundable
    (chunk-dependency-analysis succeeds on the module; this pass runs the
    same analysis). A gathered tensor is only read and a reduce-scattered one
    only written, the latter outside loops.

    Guarantees: ``chunk.wait_span lo, extent`` (wait for every chunk of this
    rank overlapping ``[lo, lo+extent)``) right before each consuming load,
    hoisted above the loops its range does not depend on (one wait per tile
    for a gather along M, one per k-block for a gather along K), and
    deduplicated when several loads at one point read the same range; the
    range of a load whose mask bounds its index by kernel parameters or
    constants (``rows >= 0``, ``rows < M``) is cut to
    ``[max(lo, 0), min(lo + B, M))``, so a fully masked tile waits for
    nothing (outside a loop wait: a ``chunk.wait_span_loop`` keeps its
    range);
    A wrapped range (``(lo + tl.arange(0, B)) % M``) gets two waits,
    ``[lo % M, lo % M + B)`` and ``[0, lo % M + B - M)`` (empty unless the
    tile wraps). A clamped range (``tl.minimum`` / ``tl.maximum`` /
    ``tl.where`` of the index) gets a wait per range of
    ``index_spans.intervals``, computed with ``tl.minimum`` / ``tl.maximum``
    from the same formulas as the host's ``chunk.access``. A range moved by a loop-carried pointer gets ``lo`` plus
    ``iteration * step`` (iteration ``(iv - lb) // loop step``).
    A wait that a loop walks (directly in the body of the innermost loop that
    moves it, ``lo`` = the induction variable, or a pointer that loop
    advances, plus loop-invariant terms) becomes ``chunk.wait_span_loop``: it skips the chunks the previous
    iteration already waited for, so a tile checks each chunk's flag once
    (one system-scope atomic per chunk, not per iteration) and still starts
    before the later chunks arrive.
    ``chunk.signal_span lo, extent`` once per tile after its last store of a
    range (after the ``scf.if`` that holds the store, so it runs exactly once
    per tile whether or not the store is predicated off); in a persistent
    kernel, once per iteration of its tile loop (each iteration is a tile),
    while stores in any other loop are refused. The runtime
    counts, per chunk, the tiles whose range overlaps it, and announces the
    chunk when that many signals arrived. Flags are epoch-numbered
    (lower-chunk-to-tile): a wait is satisfied by ``flag >= epoch`` of the
    current launch, so back-to-back launches never read a stale delivery;
    a produced chunk is complete once its tile signals reach the count (the
    simulator waits for ``epoch * tiles``; the GPU World zeroes produced
    flags after each launch's waits and waits for ``tiles``).
    ``waits=false`` / ``signals=false`` skip one side (for experiments and the
    negative tests that prove a missing wait is caught).

    ``hoist_loops=true``: a wait whose range depends on a loop variable (a
    loop that walks the gathered dim, like attention's loop over K/V blocks)
    becomes one wait for every chunk of that tensor, before the outermost
    loop around the access. Each wait inside a loop costs system-scope
    atomics per iteration; hoisted, the tile pays once, but waits for the
    whole tensor before its first iteration (no overlap inside a tile).
    """

    name: ClassVar[str] = "insert-signals"

    waits: bool = True
    signals: bool = True
    hoist_loops: bool = False

    # it adds waits, signals and the arithmetic of their bounds; the accesses
    # and the address arithmetic the analysis read are left as they were
    preserved_analyses: ClassVar[tuple] = (analyze,)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        deps = query(op, analyze)
        seen_waits: set[tuple] = set()
        last_store: dict[tuple, BoundAccess] = {}
        for b in deps.accesses:
            masked = (b.span.masked_below, b.span.masked_from)
            key = (b.plan.sym_name.data, b.tensor.tensor.data, *map(id, (*b.span.values(), *masked)))
            if b.role == "read":
                if self.waits:
                    self._insert_wait(b, key, seen_waits)
            else:
                last_store[key] = b  # accesses are in program order: the last one wins
        if self.signals:
            for b in last_store.values():
                self._insert_signal(b, deps.kernel)

    def _insert_wait(self, b: BoundAccess, key: tuple, seen: set[tuple]) -> None:
        if self.hoist_loops and b.invariant < len(b.loops):
            self._insert_whole_wait(b, seen)
            return
        anchor = b.loops[len(b.loops) - b.invariant] if b.invariant else b.access.op
        # an earlier wait for the same range in the same block dominates this access
        key = (*key, id(anchor.parent_block()))
        if key in seen:
            return
        seen.add(key)
        builder = Builder(InsertPoint.before(anchor))
        lo = _lo_value(b, builder)
        plan, tensor = b.plan.sym_name.data, b.tensor.tensor.data
        if b.span.wrap is not None:
            self._insert_wrapped_wait(b, lo, builder)
            return
        if b.span.reshaped:
            for wait_lo, wait_extent in index_spans.intervals(b.span, lo, _KernelArith(builder)):
                wait = builder.insert(WaitSpanOp(wait_lo, wait_extent, plan, tensor))
                wait.attributes[ORIGIN_ATTR] = ORIGIN
            return
        walk = _loop_walk(b, anchor)
        if walk is None:
            wait = builder.insert(WaitSpanOp(*_masked(b, lo, builder), plan, tensor))
        else:
            _, first, step = walk
            wait = builder.insert(WaitSpanLoopOp(lo, b.span.extent, first, step, plan, tensor))
        wait.attributes[ORIGIN_ATTR] = ORIGIN

    def _insert_wrapped_wait(self, b: BoundAccess, lo: SSAValue, builder: Builder) -> None:
        """Rows ``(lo + i) % M`` for ``i < extent`` (``lo >= 0``): ``[lo % M,
        lo % M + extent)`` (chunks end at ``M``), then the rows continued from
        0, ``[0, lo % M + extent - M)`` (no chunk when that is empty)."""
        wrap, extent, any_type = b.span.wrap, b.span.extent, tile.AnyValueType()
        assert wrap is not None
        start = _inserted(builder, tile.ModOp(lo, wrap, any_type))
        end = _inserted(builder, tile.AddOp(start, extent, any_type))
        rest = _inserted(builder, tile.SubOp(end, wrap, any_type))
        zero = _inserted(builder, arith.ConstantOp(IntegerAttr(0, i32)))
        plan, tensor = b.plan.sym_name.data, b.tensor.tensor.data
        for wait_lo, wait_extent in ((start, extent), (zero, rest)):
            wait = builder.insert(WaitSpanOp(wait_lo, wait_extent, plan, tensor))
            wait.attributes[ORIGIN_ATTR] = ORIGIN

    def _insert_whole_wait(self, b: BoundAccess, seen: set[tuple]) -> None:
        """One wait for every chunk of the tensor, before the outermost loop around ``b``."""
        anchor = b.loops[0]
        key = (b.plan.sym_name.data, b.tensor.tensor.data, "whole", id(anchor.parent_block()))
        if key in seen:
            return
        seen.add(key)
        builder = Builder(InsertPoint.before(anchor))
        lo, extent = (builder.insert(arith.ConstantOp(IntegerAttr(v, i32))) for v in (0, WHOLE_DIM))
        wait = builder.insert(WaitSpanOp(lo.results[0], extent.results[0], b.plan.sym_name.data, b.tensor.tensor.data))
        for new in (lo, extent, wait):
            new.attributes[ORIGIN_ATTR] = ORIGIN

    def _insert_signal(self, b: BoundAccess, kernel: tile.FuncOp) -> None:
        tiles = host_exprs.tile_loop(kernel)
        in_tile_loop = tiles is not None and list(b.loops) == [tiles]  # a persistent kernel: one tile per iteration
        if b.loops and not in_tile_loop and self._insert_flat_signal(b, kernel):
            return
        if b.loops and not in_tile_loop:
            raise PassFailedException(
                f"insert-signals: @{kernel.sym_name.data} stores '{b.access.param}' inside a loop; "
                "signalling a chunk written by several iterations of one tile is not supported "
                f"(store once per tile, after the loop). The store is {describe(b.access.op)}, in the loop "
                f"{describe(b.loops[0])}; a persistent kernel's loop over tiles is one only in the form "
                "`for tile in range(tl.program_id(0), tiles, step)` with the step `tl.num_programs(0)` or a "
                "kernel parameter, in a kernel with no other program id"
            )
        _signal_after(b, _top_level_ancestor(b.access.op, tiles if in_tile_loop else kernel))

    def _insert_flat_signal(self, b: BoundAccess, kernel: tile.FuncOp) -> bool:
        """A store in a flat (tile, k-step) loop (``host_exprs.FlatTileLoop``)
        inside its ``if ki == k_tiles - 1:`` branch runs once per tile: signal
        its rows in that branch, right after the op of the branch that holds
        the store. False when the store is not so placed (the caller refuses it)."""
        flat = host_exprs.flat_tile_loop(kernel)
        if flat is None or list(b.loops) != [flat.loop]:
            return False
        last = _top_level_ancestor(b.access.op, flat.loop)
        if not flat.is_last_step(last):
            return False
        _signal_after(b, _top_level_ancestor(b.access.op, last))
        return True
