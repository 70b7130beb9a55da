"""lower-chunk-to-tile: chunk waits/signals -> atomics on the runtime's signal pad."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i1, i32, i64
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.dialects.chunk import (
    PlanOp,
    PushReduceOp,
    ReduceSpanOp,
    SignalOp,
    SignalSpanOp,
    WaitOp,
    WaitSpanLoopOp,
    WaitSpanOp,
)
from syncopate.ir.analysis.loop_nesting import enclosing_loops
from syncopate.ir.contract import ABI_ATTR, CONSUMED, ORIGIN_ATTR, TILE_LOOP_ATTR, AbiKey, ChunkTable, TableRole, staging_param
from syncopate.ir.contract import EPOCH_PARAM as EPOCH
from syncopate.ir.contract import FLAGS_PARAM as FLAGS
from syncopate.ir.contract import MEMO_PARAM as MEMO
from syncopate.ir.contract import TILE_ORDER_PARAM as TILE_ORDER
from syncopate.ir.contract import REPORT_PARAM as REPORT
from syncopate.ir.contract import SPIN_LIMIT_PARAM as SPIN_LIMIT
from syncopate.passes.kernel_params import import_helpers, kernel_param
from syncopate.passes.sm_comm_programs import COMM_PROGRAMS, add_comm_programs

ORIGIN = StringAttr("lower-chunk-to-tile")


def flag_bases(module: ModuleOp) -> dict[str, int]:
    """Plan name -> index of its chunk 0 in the signal pad (plans in module order)."""
    bases: dict[str, int] = {}
    base = 0
    for plan in module.ops:
        if isinstance(plan, PlanOp):
            bases[plan.sym_name.data] = base
            base += 1 + max((c.chunk_id.value.data for c in plan.chunks), default=-1)
    return bases


def _sm_tensors(module: ModuleOp) -> list[tuple[str, str, str]]:
    """(plan, tensor, kernel parameter) of consumed plan tensors with SM chunks."""
    result = []
    for plan in module.ops:
        if isinstance(plan, PlanOp) and plan.collective in CONSUMED:
            sm = {c.tensor.data for c in plan.chunks if c.backend.data == "sm" and c.src.value.data != c.dst.value.data}
            result += [(plan.sym_name.data, t.tensor.data, t.param.data) for t in plan.tensors if t.tensor.data in sm]
    return result


# tl.range options that let Triton run one loop iteration's loads ahead of the
# previous iteration's code: with a wait in the loop body they would overtake it
PIPELINE_ACROSS_ITERATIONS = ("tile.flatten", "tile.warp_specialize")


def _keep_loops_in_order(wait: Operation) -> None:
    """Drop ``flatten``/``warp_specialize`` from every loop around ``wait``."""
    for loop in enclosing_loops(wait):
        for option in PIPELINE_ACROSS_ITERATIONS:
            loop.attributes.pop(option, None)


def _kernel_of(op: Operation) -> tile.FuncOp:
    parent = op.parent_op()
    while not isinstance(parent, tile.FuncOp):
        assert parent is not None
        parent = parent.parent_op()
    return parent


@dataclass
class _Lowering:
    """What the patterns of one module share: the kernel's sync parameters,
    the chunk tables and helpers they added (for the ``chunk.abi`` record)."""

    kernel: tile.FuncOp
    bases: dict[str, int]
    memo: bool
    tables: dict[str, ChunkTable] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    pushed: set[str] = field(default_factory=set)  # plans a chunk.push_reduce all-reduces (their signals lower to nothing)

    def __post_init__(self) -> None:
        # a tensor-descriptor store completes after the statement (a TMA bulk copy): signals wait for it
        self.bulk_stores = any(isinstance(o, (tile.DescriptorStoreOp, tile.DescriptorAtomicOp))
                               for o in self.kernel.walk())
        self.flags = kernel_param(self.kernel, FLAGS, tile.PointerType())
        self.epoch = kernel_param(self.kernel, EPOCH, tile.PointerType())
        self.spin_limit = kernel_param(self.kernel, SPIN_LIMIT, tile.ScalarType())
        self.report = kernel_param(self.kernel, REPORT, tile.PointerType())

    def wait_args(self) -> list[SSAValue]:
        """The trailing arguments of every wait helper."""
        return [self.epoch, self.spin_limit, self.report]

    def table(self, plan: str, tensor: str, role: TableRole) -> tuple[SSAValue, SSAValue]:
        """The chunk-table parameter and its row count for one plan tensor and role."""
        table = ChunkTable.for_tensor(plan, tensor, role)
        self.tables[table.param] = table
        return (kernel_param(self.kernel, table.param, tile.PointerType()),
                kernel_param(self.kernel, table.count, tile.ScalarType()))

    def bulk_flag(self, rewriter: PatternRewriter) -> SSAValue:
        """The signal helpers' ``BULK_STORES`` constexpr: True in a kernel with
        tensor-descriptor stores, whose signal must first wait for them (an
        instruction of sm_90 and later, which such a kernel needs anyway)."""
        return _bool(rewriter, self.bulk_stores)

    def call(self, rewriter: PatternRewriter, sync: Operation, callee: str, args: list[SSAValue]) -> None:
        """Replace ``sync`` by a call of the helper ``callee``."""
        _insert(rewriter, tile.CallJitOp(callee, args, []))
        if callee.startswith("syn_wait"):
            _keep_loops_in_order(sync)
        self.used.add(callee)
        rewriter.erase(sync)


def _insert(rewriter: PatternRewriter, new: Operation) -> Operation:
    """Insert ``new`` before the matched op, tagged with this pass as its origin."""
    new.attributes[ORIGIN_ATTR] = ORIGIN
    return rewriter.insert(new)


def _bool(rewriter: PatternRewriter, value: bool) -> SSAValue:
    """An ``i1`` constant (a helper's flag or constexpr switch)."""
    return _insert(rewriter, arith.ConstantOp(IntegerAttr(int(value), i1))).results[0]


def _span_hi(rewriter: PatternRewriter, lo: SSAValue, extent: SSAValue) -> SSAValue:
    """``lo + extent``; ``hi`` itself for an extent ``hi - lo`` (a range cut
    to its mask's bounds, see insert-signals)."""
    if isinstance(extent, OpResult) and isinstance(extent.op, tile.SubOp) and extent.op.rhs is lo:
        return extent.op.lhs
    return _insert(rewriter, tile.AddOp(lo, extent, tile.AnyValueType())).results[0]


def _flag_index(rewriter: PatternRewriter, lowering: _Lowering, plan: str, chunk: SSAValue) -> SSAValue:
    """The signal-pad index of a chunk: its plan's flag base + its id."""
    base = _insert(rewriter, arith.ConstantOp(IntegerAttr(lowering.bases[plan], i32))).results[0]
    return _insert(rewriter, tile.AddOp(chunk, base, i32)).results[0]


@dataclass
class LowerWait(RewritePattern):
    """``chunk.wait`` -> ``syn_wait_chunk(flags, base + chunk, epoch, spin_limit, report)``."""

    lowering: _Lowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WaitOp, rewriter: PatternRewriter) -> None:
        index = _flag_index(rewriter, self.lowering, op.plan.string_value(), op.chunk)
        self.lowering.call(rewriter, op, "syn_wait_chunk", [self.lowering.flags, index, *self.lowering.wait_args()])


@dataclass
class LowerSignal(RewritePattern):
    """``chunk.signal`` -> ``syn_signal_chunk(flags, base + chunk)``."""

    lowering: _Lowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SignalOp, rewriter: PatternRewriter) -> None:
        index = _flag_index(rewriter, self.lowering, op.plan.string_value(), op.chunk)
        self.lowering.call(rewriter, op, "syn_signal_chunk", [self.lowering.flags, index,
                                                              self.lowering.bulk_flag(rewriter)])


@dataclass
class LowerWaitSpan(RewritePattern):
    """``chunk.wait_span`` -> ``syn_wait_span`` over the wait table, or
    ``syn_wait_span_memo`` inside a persistent kernel's loops (with ``memo``)."""

    lowering: _Lowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WaitSpanOp, rewriter: PatternRewriter) -> None:
        low = self.lowering
        tab, n = low.table(op.plan.string_value(), op.tensor.data, "wait")
        args = [low.flags, tab, n, op.lo, _span_hi(rewriter, op.lo, op.extent), *low.wait_args()]
        extent = op.extent
        if low.memo and TILE_LOOP_ATTR in low.kernel.attributes and enclosing_loops(op):
            low.call(rewriter, op, "syn_wait_span_memo", [*args, kernel_param(low.kernel, MEMO, tile.PointerType())])
        else:
            low.call(rewriter, op, "syn_wait_span", args)
        if isinstance(extent, OpResult) and isinstance(extent.op, tile.SubOp) and not extent.uses:
            rewriter.erase(extent.op)  # a cut range's `hi - lo`, which _span_hi looked through


@dataclass
class LowerWaitSpanLoop(RewritePattern):
    """``chunk.wait_span_loop`` -> ``syn_wait_span_loop``, which skips the
    chunks the loop's previous iteration already waited for."""

    lowering: _Lowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WaitSpanLoopOp, rewriter: PatternRewriter) -> None:
        low = self.lowering
        tab, n = low.table(op.plan.string_value(), op.tensor.data, "wait")
        hi = _span_hi(rewriter, op.lo, op.extent)
        low.call(rewriter, op, "syn_wait_span_loop",
                 [low.flags, tab, n, op.lo, hi, op.first, op.step, *low.wait_args()])


@dataclass
class LowerSignalSpan(RewritePattern):
    """``chunk.signal_span`` -> ``syn_signal_span`` over the signal table."""

    lowering: _Lowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SignalSpanOp, rewriter: PatternRewriter) -> None:
        low = self.lowering
        if op.plan.string_value() in low.pushed:
            # the kernel all-reduces this plan itself: no runtime counts its tiles
            rewriter.erase(op)
            return
        tab, n = low.table(op.plan.string_value(), op.tensor.data, "signal")
        low.call(rewriter, op, "syn_signal_span", [low.flags, tab, n, op.lo, _span_hi(rewriter, op.lo, op.extent),
                                                   low.bulk_flag(rewriter)])


@dataclass
class LowerReduceSpan(RewritePattern):
    """``chunk.reduce_span`` -> ``syn_reduce_span`` over this rank's reduce
    table and staging buffer; its result replaces the op's."""

    lowering: _Lowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduceSpanOp, rewriter: PatternRewriter) -> None:
        low = self.lowering
        plan, tensor = op.plan.string_value(), op.tensor.data
        tab, n = low.table(plan, tensor, "reduce")
        staging_name = staging_param(plan, tensor)
        staging = kernel_param(low.kernel, staging_name, tile.PointerType())
        args = [op.value, low.flags, tab, n, op.lo, op.col, staging, *low.wait_args(), op.extent, op.col_extent]
        call = _insert(rewriter, tile.CallJitOp("syn_reduce_span", args, [tile.AnyValueType()]))
        low.used.add("syn_reduce_span")
        rewriter.replace(op, [], [call.results[0]])


@dataclass
class LowerPushReduce(RewritePattern):
    """``chunk.push_reduce`` -> ``syn_push_reduce`` over this rank's push
    table (one row per rank: staging offsets for both epoch parities and
    flag words); its result replaces the op's. Tiles are named by their
    ``syn_tile_order`` entry where tile-reorder added one, else by their
    linear program id."""

    lowering: _Lowering

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PushReduceOp, rewriter: PatternRewriter) -> None:
        low = self.lowering
        tab, n = low.table(op.plan.string_value(), op.tensor.data, "push")
        mask = op.mask if op.mask is not None else _bool(rewriter, True)
        ordered = TILE_ORDER in low.kernel.arg_names
        order = kernel_param(low.kernel, TILE_ORDER, tile.PointerType()) if ordered else low.flags
        flag = _bool(rewriter, ordered)
        args = [op.value, op.ptrs, mask, tab, n, low.flags, order, flag, *low.wait_args()]
        call = _insert(rewriter, tile.CallJitOp("syn_push_reduce", args, [tile.AnyValueType()]))
        low.used.add("syn_push_reduce")
        rewriter.replace(op, [], [call.results[0]])


SYNC_OPS = (WaitOp, SignalOp, WaitSpanOp, WaitSpanLoopOp, SignalSpanOp, ReduceSpanOp, PushReduceOp)
"""The chunk ops this pass lowers, one pattern each."""


@dataclass(frozen=True)
class LowerChunkToTilePass(ModulePass):
    """Lower chunk.wait/signal(_span) to acquire/release atomics.

    Assumes: chunk sync ops sit in one kernel (tile.func) of a module that
    holds their plans.

    Guarantees: the kernel gets keyword parameters ``syn_flags`` (this rank's
    signal pad, int32, one flag per chunk of every plan at the plan's flag
    base + chunk id), ``syn_epoch`` (the launch number, from 1) and per plan
    tensor and role a chunk table ``syn_<wait|signal>_<plan>_<tensor>_tab``
    with ``..._n`` rows of ``(lo, hi, flag index)``. A wait becomes
    ``syn_wait_span``: for each overlapping chunk, spin on
    ``atomic_add(flag, 0, sem=acquire, scope=sys) < epoch``, then a CTA
    barrier (``chunk.wait_span_loop`` becomes ``syn_wait_span_loop``, which
    skips the chunks the loop's previous iteration already waited for). In a
    persistent kernel (one whose tile loop chunk-dependency-analysis found),
    a wait inside a loop becomes ``syn_wait_span_memo``, which also takes
    ``syn_wait_memo`` (two int32 words per program, zeroed by the runtime) and
    skips the poll when the tile's rows lie in the chunk the program last saw
    arrive in this launch (``memo=false``: plain ``syn_wait_span``). A
    signal becomes a barrier then ``atomic_add(flag, 1,
    sem=release, scope=sys)`` per overlapping chunk; in a kernel with
    tensor-descriptor stores or atomics (TMA bulk copies, which complete after
    their statement), every thread first waits for its bulk stores' writes
    (``cp.async.bulk.wait_group 0``, the helpers' ``BULK_STORES`` constexpr
    set to True), so no flag is seen before the tile it announces. A ``chunk.reduce_span``
    (fuse-peer-reduction) becomes ``syn_reduce_span`` over a table
    ``syn_reduce_<plan>_<tensor>_tab`` (rows ``(lo, hi, arrival flag,
    staging offset, row stride, columns)``, one per own piece and peer) and
    the staging buffer ``syn_staging_<plan>_<tensor>``, whose value the
    store then stores. A ``chunk.push_reduce`` (push-all-reduce) becomes
    ``syn_push_reduce`` over a table ``syn_push_<plan>_<tensor>_tab`` (one
    row per rank: the element offsets from the tensor to the staging slots
    it writes and reads, for both epoch parities, and the flag words it
    raises and waits for), and each ``chunk.signal_span`` of that plan is
    dropped: the kernel finishes the all-reduce itself, so no runtime
    counts its tiles. The helpers are appended
    to the module as jit functions, so the emitted file is self-contained. The
    kernel's ``chunk.abi`` attribute lists the added parameters for the
    runtime. No chunk op remains; the plans stay (the runtime reads them).

    Each sync op has its own rewrite pattern (``LowerWait``, ``LowerSignal``,
    ``LowerWaitSpan``, ``LowerWaitSpanLoop``, ``LowerSignalSpan``,
    ``LowerReduceSpan``, ``LowerPushReduce``), applied in one walk in program order; the
    parameters they add appear in the order of the ops they lower.

    A loop around a wait loses the ``tl.range`` options ``flatten`` and
    ``warp_specialize`` (even as constexpr parameters): both let the next
    iteration's loads start before this iteration's code is done, which
    would move a tile's loads above its own wait (in a flattened persistent
    tile loop, the next tile's A loads overtake its wait). Loops around
    signals only keep them: a signal follows its store in program order.
    """

    name: ClassVar[str] = "lower-chunk-to-tile"

    memo: bool = True  # false: plain syn_wait_span in persistent kernels too (for comparison)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sync_ops = [o for o in op.walk() if isinstance(o, SYNC_OPS)]
        if not sync_ops:
            return
        kernels = {id(_kernel_of(o)): _kernel_of(o) for o in sync_ops}
        if len(kernels) != 1:
            raise PassFailedException("lower-chunk-to-tile: chunk waits/signals are spread over several functions")
        low = _Lowering(next(iter(kernels.values())), flag_bases(op), self.memo)
        low.pushed = {o.plan.string_value() for o in sync_ops if isinstance(o, PushReduceOp)}
        if low.pushed and _sm_tensors(op):
            raise PassFailedException("lower-chunk-to-tile: a kernel that all-reduces by push (push-all-reduce) "
                                      "cannot also hold SM communication programs: the push names a tile by its "
                                      "program id, which the communication programs shift (use backend=ce)")
        patterns = [pattern(low) for pattern in (LowerWait, LowerSignal, LowerWaitSpan, LowerWaitSpanLoop,
                                                 LowerSignalSpan, LowerReduceSpan, LowerPushReduce)]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns), apply_recursively=False).rewrite_module(op)
        self._record_abi(op, low)

    @staticmethod
    def _record_abi(module: ModuleOp, low: _Lowering) -> None:
        """Add the SM comm programs if needed, write ``chunk.abi``, append the helpers."""
        kernel = low.kernel
        sm_tensors = _sm_tensors(module)
        table_list = list(low.tables.values())
        abi = dict(kernel.attributes[ABI_ATTR].data) if ABI_ATTR in kernel.attributes else {}
        if sm_tensors:
            table_list += add_comm_programs(kernel, sm_tensors, low.flags, low.epoch)
            low.used.add("syn_sm_pull")
            abi[AbiKey.COMM_PROGRAMS] = StringAttr(COMM_PROGRAMS)
        if "syn_wait_span_memo" in low.used:
            abi[AbiKey.MEMO] = StringAttr(MEMO)
        abi.update({
            AbiKey.FLAGS: StringAttr(FLAGS),
            AbiKey.EPOCH: StringAttr(EPOCH),
            AbiKey.SPIN_LIMIT: StringAttr(SPIN_LIMIT),
            AbiKey.REPORT: StringAttr(REPORT),
            AbiKey.FLAG_BASES: DictionaryAttr({k: IntegerAttr(v, i64) for k, v in low.bases.items()}),
            AbiKey.TABLES: ArrayAttr([t.to_attr() for t in table_list]),
        })
        kernel.attributes[ABI_ATTR] = DictionaryAttr(abi)
        import_helpers(module, low.used)
