"""Isolated delivery and second-poll arrival on simulated ranks
(runtime/sim/delivery.py): each program runs against a fresh world holding only the
chunks it waited for itself, a produced chunk counts only what its tiles
wrote before signalling it, and a chunk lands only when a wait polls its flag
a second time. Each test sabotages the synchronisation one way and shows
which delivery catches it."""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32

from syncopate.dialects import tile
from syncopate.dialects.chunk import WaitSpanOp
from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.ir.context import make_context
from syncopate.ir.frontend.triton_import import import_file
from syncopate.ir.plans.cli import load_plans
from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.lowering.compile import run_pipeline
from syncopate.runtime.fused import FusedProgram, load_program
from syncopate.runtime.sim.delivery import DeliveryHook, Incoming, IsolatedOutput, Outgoing, SimulationError
from syncopate.runtime.sim.world import output_reads
from syncopate.runtime.harness.workload import load_workload

ROOT = Path(__file__).resolve().parents[3]
WORKLOADS = Path(__file__).resolve().parents[1] / "workloads"


def _workload(path: Path):
    return load_workload(str(path))


def _edited_program(workload, world: int, edit: Callable[[ModuleOp], None]) -> FusedProgram:
    """The workload's kernel through chunk-dependency-analysis and
    insert-signals, then ``edit`` (the sabotage), then lower-chunk-to-tile."""
    module = import_file(workload.path)
    for plan in load_plans(workload.plan_specs(world), make_context()):
        module.body.block.add_op(plan)
    run_pipeline(module, "chunk-dependency-analysis,insert-signals")
    edit(module)
    run_pipeline(module, "lower-chunk-to-tile")
    name = next(op for op in module.ops if isinstance(op, tile.FuncOp)).sym_name.data
    return load_program(module, name)


def _shift_waits(rows: int, last: int | None = None) -> Callable[[ModuleOp], None]:
    """Every wait covers its range moved ``rows`` rows up (its start at
    most ``last``, when given: inside the extent)."""

    def edit(module: ModuleOp) -> None:
        for wait in [op for op in module.walk() if isinstance(op, WaitSpanOp)]:
            builder = Builder(InsertPoint.before(wait))
            shift = builder.insert(arith.ConstantOp(IntegerAttr(rows, i32)))
            moved = builder.insert(tile.AddOp(wait.lo, shift.results[0], tile.AnyValueType()))
            if last is not None:
                bound = builder.insert(arith.ConstantOp(IntegerAttr(last, i32)))
                moved = builder.insert(tile.CallOp("tl.minimum", [moved.results[0], bound.results[0]], {}, {},
                                                   tile.AnyValueType()))
            wait.operands[0] = moved.results[0]

    return edit


def test_a_wait_that_misses_rows_an_earlier_tile_waited_for_is_caught_only_in_isolation():
    """ag_gemm, W=4 (chunks [0,12) [12,24) [24,36) [36,50), BLOCK_M=16), each
    tile waiting for its rows moved 8 up: on rank 0 tile 1 reads rows 16-23
    without waiting, but tile 0 waited for their chunk, so in a shared world
    (late delivery) they hold data; in isolation they are NaN. The last
    tile's wait starts at row 49 at most, inside the extent (past it, see
    the next test)."""
    workload = _workload(ROOT / "examples" / "ag_gemm.py")
    program = _edited_program(workload, 4, _shift_waits(8, last=49))
    late = run_simulated(workload, 4, "late", program=program, sanitize=False)
    isolated = run_simulated(workload, 4, "isolated", program=program, sanitize=False)
    assert late[0].ok, "rank 0's unwaited rows were delivered to an earlier tile"
    assert not isolated[0].ok and math.isnan(isolated[0].max_error)
    # the address sanitizer needs no isolation: tile 1 read rows it did not wait for
    with pytest.raises(SimulationError, match=r"rank 0 program .*read row 1[6-9] of 'a_ptr'.* without waiting"):
        run_simulated(workload, 4, "late", program=program)


def test_a_wait_moved_past_the_extent_fails_loudly_naming_the_tile_and_rows():
    """The same waits moved 8 rows up, unbounded: the last tile's (rows
    48-49 of 50, cut at M) waits for [56, 58), where no chunk lies. Such a
    wait polls nothing; syn_check_span reports it and the run fails, under
    any delivery and without the address sanitizer."""
    workload = _workload(ROOT / "examples" / "ag_gemm.py")
    program = _edited_program(workload, 4, _shift_waits(8))
    with pytest.raises(SimulationError, match=r"rank \d: program \d+ waited for rows \[56, 58\) of 'a_ptr' of @ag "
                                              r"\(rows \[0, 50\)\), where this rank receives no chunk"):
        run_simulated(workload, 4, "late", program=program, sanitize=False)


def test_a_wait_that_misses_rows_inside_the_extent_is_caught_by_the_values():
    """Each tile's wait moved 8 rows down stays inside the plan's 50 rows,
    but tile 1 of rank 0 (rows 16-31) then waits for rows [8, 24) only and
    reads rows 24-31 of a chunk it never waited for: in isolation they are
    NaN, and the comparison with the reference fails."""
    workload = _workload(ROOT / "examples" / "ag_gemm.py")
    program = _edited_program(workload, 4, _shift_waits(-8))
    isolated = run_simulated(workload, 4, "isolated", program=program, sanitize=False)
    assert not isolated[0].ok and math.isnan(isolated[0].max_error)
    with pytest.raises(SimulationError, match=r"read row \d+ of 'a_ptr'.* without waiting for it, at .*\.py:\d+"):
        run_simulated(workload, 4, "isolated", program=program)


def test_a_wrong_stride_option_is_caught_in_isolation():
    """stride= naming the K stride: the waits follow the wrong dim. At the
    example's sizes the shared world hides it; isolation does not."""
    workload = _workload(ROOT / "examples" / "ag_gemm.py")
    try:
        program = compile_workload(workload, 2, plan_specs=["all-gather{tensor=a_ptr dim=0 stride=stride_ak}"])
    except Exception as err:  # refused at compile time: the cleaner outcome
        assert "stride" in str(err)
        return
    assert not all(r.ok for r in run_simulated(workload, 2, "isolated", program=program))


def _stale_spin(program: FusedProgram, tmp_path: Path) -> FusedProgram:
    """``syn_spin`` accepting the previous launch's flag (target - 1)."""
    source = program.source.replace("    flag = flags + index\n", "    flag = flags + index\n    target = target - 1\n", 1)
    assert source != program.source
    path = tmp_path / "stale_spin.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("stale_spin", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return FusedProgram(program.module, source, str(path), program.kernel_name, getattr(module, program.kernel_name))


@pytest.mark.parametrize("order", ["plan", "isolated"])
def test_a_spin_that_exits_on_a_stale_flag_reads_poison(order: str, tmp_path: Path):
    """The first poll of a chunk finds its flag unset; a spin that accepts
    the previous epoch exits there and never sees the data."""
    workload = _workload(ROOT / "examples" / "ag_gemm.py")
    program = _stale_spin(compile_workload(workload, 2), tmp_path)
    results = run_simulated(workload, 2, order, program=program, sanitize=False)
    assert any(math.isnan(r.max_error) for r in results), order
    with pytest.raises(SimulationError, match="without waiting"):  # the poll found the flag unset
        run_simulated(workload, 2, order, program=program)


def test_each_arm_of_an_if_else_waits_for_its_rows():
    """The same rows loaded in both arms: two waits, and under isolation the
    odd tiles (else arm) read delivered data."""
    workload = _workload(WORKLOADS / "ifelse_gather.py")
    program = compile_workload(workload, 3)
    waits = [op for op in program.module.walk() if op.name.startswith("tile.call") and "syn_wait_span" in str(op)]
    blocks = {id(op.parent_block()) for op in waits}
    assert len(blocks) >= 2, program.source
    for r in run_simulated(workload, 3, "isolated", program=program):
        assert r.ok, r


def test_a_split_k_output_the_launch_zeroed_is_not_poisoned():
    workload = _workload(WORKLOADS / "splitk_rs.py")
    program = compile_workload(workload, 2)
    assert output_reads(program, "c_ptr") == (True, True)
    for order in ("plan", "isolated"):
        results = run_simulated(workload, 2, order, program=program)
        assert all(r.ok for r in results), (order, results)


def _chunk(cid: int, lo: int, hi: int, flag: int) -> ConcreteChunk:
    return ConcreteChunk("rs", cid, flag, "c", "c_ptr", 0, lo, hi, 0, 1, 0, "ce")


def test_an_isolated_output_counts_only_rows_written_before_their_signal():
    """Mirror of isolated waits: program 1 writes rows of chunk 0 and of chunk
    1 but signals only chunk 0; program 2 then signals chunk 1 without
    writing it. Chunk 1 is collected from the accumulated signals: NaN."""
    out = torch.full((4, 2), float("nan"))
    isolated = IsolatedOutput.of(out, additive=False)
    flags = torch.zeros(2, dtype=torch.int32)
    collected: dict[int, torch.Tensor] = {}

    def collect(cid: int) -> Callable[[], None]:
        return lambda: collected.__setitem__(cid, isolated.acc[2 * cid:2 * cid + 2].clone())

    outgoing = {f: Outgoing(_chunk(f, 2 * f, 2 * f + 2, f), 1, collect(f), isolated=isolated) for f in (0, 1)}
    hook = DeliveryHook(flags, 1, "isolated", 0, [], outgoing, outputs=[isolated])
    hook.on_program()
    out.fill_(1.0)  # program 1 writes every row
    flags[0] += 1
    hook.on_signal(0)
    hook.on_program()  # program 2: a fresh world
    assert torch.isnan(out).all()
    flags[1] += 1
    hook.on_signal(1)
    hook.finish()
    assert torch.equal(collected[0], torch.ones(2, 2))
    assert torch.isnan(collected[1]).all()


def test_an_isolated_program_does_not_see_what_an_earlier_program_received():
    target = torch.full((4,), float("nan"))
    source = torch.arange(4.0)
    c = ConcreteChunk("ag", 0, 0, "a", "a_ptr", 0, 0, 4, 1, 0, 0, "ce")
    item = Incoming(c, lambda: target.copy_(source), lambda: target.fill_(float("nan")))
    flags = torch.zeros(1, dtype=torch.int32)
    hook = DeliveryHook(flags, 3, "isolated", 0, [item], {})
    hook.on_program()
    hook.on_poll(0)
    assert torch.isnan(target).all() and int(flags[0]) == 0, "the first poll finds the chunk missing"
    hook.on_poll(0)
    assert torch.equal(target, source) and int(flags[0]) == 3
    hook.on_program()
    assert torch.isnan(target).all() and int(flags[0]) == 0


def test_a_program_that_adds_into_a_chunk_twice_counts_each_addition_once():
    """A persistent program's two tiles add into rows of one chunk (two
    signals): each signal takes only what was added since the last one."""
    out = torch.zeros(2, 2)
    isolated = IsolatedOutput.of(out, additive=True)
    flags = torch.zeros(1, dtype=torch.int32)
    collected: list[torch.Tensor] = []
    outgoing = {0: Outgoing(_chunk(0, 0, 2, 0), 2, lambda: collected.append(isolated.acc.clone()), isolated=isolated)}
    hook = DeliveryHook(flags, 1, "isolated", 0, [], outgoing, outputs=[isolated])
    hook.on_program()
    for row in (0, 1):  # tile `row` adds 1 to its row, then signals the chunk
        out[row] += 1.0
        flags[0] += 1
        hook.on_signal(0)
    hook.finish()
    assert len(collected) == 1 and torch.equal(collected[0], torch.ones(2, 2)), collected


def test_a_masked_off_atomic_lane_inside_the_pad_is_no_poll():
    """An atomic on an output whose masked-off lanes point past the tensor's
    end (a split-K tile's padding rows) may hit the signal pad's addresses;
    those lanes touch nothing, so they are no flag poll (the allocator's
    layout made this flaky before)."""
    flags = torch.zeros(4, dtype=torch.int32)
    hook = DeliveryHook(flags, 1, "isolated", 0, [], {})
    target = torch.zeros(2, dtype=torch.int32)
    lanes = [target.data_ptr(), flags.data_ptr()]  # lane 1 lies in the pad
    with hook.installed():
        _atomic_add(lanes, [True, False])
    assert hook.polls == 0
    with hook.installed(), pytest.raises(SimulationError, match="signal-pad flag 0"):  # unmasked: a poll
        _atomic_add(lanes, [True, True])


def _atomic_add(addresses: list[int], mask: list[bool]) -> None:
    """``tl.atomic_add(ptrs, 0, mask)`` on int32 words, as the interpreter issues it."""
    import numpy as np
    import triton.language as tl
    from triton._C.libtriton import ir
    from triton.runtime import interpreter

    handle = interpreter.TensorHandle
    interpreter.interpreter_builder.create_atomic_rmw(
        ir.ATOMIC_OP.ADD, handle(np.array(addresses, dtype=np.uint64), tl.pointer_type(tl.int32)),
        handle(np.zeros(len(addresses), dtype=np.int32), tl.int32), handle(np.array(mask), tl.int1),
        ir.MEM_SEMANTIC.RELAXED, ir.MEM_SYNC_SCOPE.GPU)
