"""lower-chunk-to-tile: chunk waits/signals -> atomics on the runtime's signal pad."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.builder import Builder, InsertPoint
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i32, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.dialects.chunk import PlanOp, ReduceSpanOp, SignalOp, SignalSpanOp, WaitOp, WaitSpanLoopOp, WaitSpanOp
from syncopate.ir.analysis.footprint import enclosing_loops
from syncopate.ir.contract import (
    ABI_ATTR,
    CONSUMED,
    ORIGIN_ATTR,
    TILE_LOOP_ATTR,
    AbiKey,
    ChunkTable,
)
from syncopate.ir.contract import EPOCH_PARAM as EPOCH
from syncopate.ir.contract import FLAGS_PARAM as FLAGS
from syncopate.ir.contract import MEMO_PARAM as MEMO
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
    sem=release, scope=sys)`` per overlapping chunk. A ``chunk.reduce_span``
    (fuse-peer-reduction) becomes ``syn_reduce_span`` over a table
    ``syn_reduce_<plan>_<tensor>_tab`` (rows ``(lo, hi, arrival flag,
    staging offset, row stride, columns)``, one per own piece and peer) and
    the staging buffer ``syn_staging_<plan>_<tensor>``, whose value the
    store then stores. The helpers are appended
    to the module as jit functions, so the emitted file is self-contained. The
    kernel's ``chunk.abi`` attribute lists the added parameters for the
    runtime. No chunk op remains; the plans stay (the runtime reads them).

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
        sync_ops = [o for o in op.walk()
                    if isinstance(o, (WaitOp, SignalOp, WaitSpanOp, WaitSpanLoopOp, SignalSpanOp, ReduceSpanOp))]
        if not sync_ops:
            return
        kernels = {id(_kernel_of(o)): _kernel_of(o) for o in sync_ops}
        if len(kernels) != 1:
            raise PassFailedException("lower-chunk-to-tile: chunk waits/signals are spread over several functions")
        kernel = next(iter(kernels.values()))
        bases = flag_bases(op)
        flags = kernel_param(kernel, FLAGS, tile.PointerType())
        epoch = kernel_param(kernel, EPOCH, tile.PointerType())
        spin_limit = kernel_param(kernel, SPIN_LIMIT, tile.ScalarType())
        report = kernel_param(kernel, REPORT, tile.PointerType())
        tables: dict[str, ChunkTable] = {}
        used: set[str] = set()
        for sync in sync_ops:
            builder = Builder(InsertPoint.before(sync))
            plan = sync.plan.string_value()
            if isinstance(sync, ReduceSpanOp):
                self._lower_reduce(sync, kernel, builder, tables, (flags, epoch, spin_limit, report))
                used.add("syn_reduce_span")
                continue
            if isinstance(sync, (WaitSpanOp, WaitSpanLoopOp, SignalSpanOp)):
                role = "signal" if isinstance(sync, SignalSpanOp) else "wait"
                table = ChunkTable.for_tensor(plan, sync.tensor.data, role)
                tab_name, n_name = table.param, table.count
                tables[tab_name] = table
                tab = kernel_param(kernel, tab_name, tile.PointerType())
                n = kernel_param(kernel, n_name, tile.ScalarType())
                hi = self._emit(builder, tile.AddOp(sync.lo, sync.extent, tile.AnyValueType())).results[0]
                args: list[SSAValue] = [flags, tab, n, sync.lo, hi]
                callee = "syn_wait_span" if role == "wait" else "syn_signal_span"
                if isinstance(sync, WaitSpanLoopOp):
                    callee = "syn_wait_span_loop"
                    args += [sync.first, sync.step]
                if role == "wait":
                    args += [epoch, spin_limit, report]
                if (self.memo and callee == "syn_wait_span" and TILE_LOOP_ATTR in kernel.attributes
                        and enclosing_loops(sync)):
                    callee = "syn_wait_span_memo"
                    args.append(kernel_param(kernel, MEMO, tile.PointerType()))
            else:
                base = self._emit(builder, arith.ConstantOp(IntegerAttr(bases[plan], i32))).results[0]
                index = self._emit(builder, tile.AddOp(sync.chunk, base, i32)).results[0]
                callee = "syn_wait_chunk" if isinstance(sync, WaitOp) else "syn_signal_chunk"
                args = [flags, index, epoch, spin_limit, report] if isinstance(sync, WaitOp) else [flags, index]
            self._emit(builder, tile.CallJitOp(callee, args, []))
            if callee.startswith("syn_wait"):
                _keep_loops_in_order(sync)
            used.add(callee)
            sync.detach()
            sync.erase()
        sm_tensors = _sm_tensors(op)
        table_list = list(tables.values())
        abi = dict(kernel.attributes[ABI_ATTR].data) if ABI_ATTR in kernel.attributes else {}
        if sm_tensors:
            table_list += add_comm_programs(kernel, sm_tensors, flags, epoch)
            used.add("syn_sm_pull")
            abi[AbiKey.COMM_PROGRAMS] = StringAttr(COMM_PROGRAMS)
        if "syn_wait_span_memo" in used:
            abi[AbiKey.MEMO] = StringAttr(MEMO)
        abi.update({
            AbiKey.FLAGS: StringAttr(FLAGS),
            AbiKey.EPOCH: StringAttr(EPOCH),
            AbiKey.SPIN_LIMIT: StringAttr(SPIN_LIMIT),
            AbiKey.REPORT: StringAttr(REPORT),
            AbiKey.FLAG_BASES: DictionaryAttr({k: IntegerAttr(v, i64) for k, v in bases.items()}),
            AbiKey.TABLES: ArrayAttr([t.to_attr() for t in table_list]),
        })
        kernel.attributes[ABI_ATTR] = DictionaryAttr(abi)
        import_helpers(op, used)

    def _lower_reduce(self, sync: ReduceSpanOp, kernel: tile.FuncOp, builder: Builder,
                      tables: dict[str, ChunkTable], sync_args: tuple[SSAValue, ...]) -> None:
        """``chunk.reduce_span`` -> ``syn_reduce_span`` over this rank's reduce table and staging buffer."""
        flags, epoch, spin_limit, report = sync_args
        plan, tensor = sync.plan.string_value(), sync.tensor.data
        table = ChunkTable.for_tensor(plan, tensor, "reduce")
        tab_name, n_name, staging_name = table.param, table.count, table.staging
        assert staging_name is not None  # for_tensor names the staging buffer of every reduce table
        tables[tab_name] = table
        tab = kernel_param(kernel, tab_name, tile.PointerType())
        n = kernel_param(kernel, n_name, tile.ScalarType())
        staging = kernel_param(kernel, staging_name, tile.PointerType())
        args = [sync.value, flags, tab, n, sync.lo, sync.col, staging, epoch, spin_limit, report, sync.extent,
                sync.col_extent]
        call = self._emit(builder, tile.CallJitOp("syn_reduce_span", args, [tile.AnyValueType()]))
        sync.result.replace_all_uses_with(call.results[0])
        sync.detach()
        sync.erase()

    @staticmethod
    def _emit(builder: Builder, new: Operation) -> Operation:
        new.attributes[ORIGIN_ATTR] = ORIGIN
        return builder.insert(new)
