"""The one-shot push all-reduce (push-all-reduce) on simulated ranks, the local rank, and its sabotages."""

import dataclasses
import importlib.util
import os
import re

import pytest
import torch

from syncopate.runtime.abi import AbiError, pushed_plans
from syncopate.runtime.fused import FusedKernel, FusedProgram, compile_fused
from syncopate.runtime.harness.check import run_simulated
from syncopate.runtime.harness.workload import load_workload
from syncopate.runtime.local import LocalRank
from syncopate.runtime.push import PushLayout, residency_error
from syncopate.runtime.sim.delivery import DELIVERY_ORDERS

HERE = os.path.dirname(__file__)
DECODE = os.path.join(HERE, "..", "workloads", "gemm_ar_decode.py")
EXAMPLE = "examples/gemm_ar.py"
PUSH = "overlap{reduce=push}"


def program(path, kernel, world, pipeline=PUSH):
    tensor = "y_ptr" if path == DECODE else "c_ptr"
    return compile_fused(path, kernel, [f"all-reduce{{tensor={tensor} dim=0 world={world}}}"], pipeline)


@pytest.mark.parametrize("world", [2, 3, 4])
@pytest.mark.parametrize("order", DELIVERY_ORDERS)
def test_every_rank_gets_the_whole_sum_from_one_kernel(world, order):
    prog = program(DECODE, "decode_ar_kernel", world)
    assert pushed_plans(prog) == {"ar"}
    results = run_simulated(load_workload(DECODE), world, order, program=prog)
    assert [r.ok for r in results] == [True] * world, [(r.rank, r.error) for r in results]
    # each rank's tiles waited for every peer's partial of their tile: (W - 1) flags x 3 tiles, polled at least once
    assert all(r.polls >= (world - 1) * 3 for r in results)


@pytest.mark.parametrize("order", ["plan", "isolated"])
def test_many_rows_and_tiles_at_three_ranks(order):
    results = run_simulated(load_workload(EXAMPLE), 3, order, program=program(EXAMPLE, "gemm_ar_kernel", 3))
    assert all(r.ok for r in results), [(r.rank, r.error) for r in results]


def test_ranks_get_bit_identical_sums():
    from syncopate.runtime.sim.world import SimWorld

    workload = load_workload(EXAMPLE)
    prog = program(EXAMPLE, "gemm_ar_kernel", 3)
    sim = SimWorld(3, "random")
    module = workload.module
    outs = []
    for r in range(3):
        inputs = module.make_inputs(r, 3, 0)
        outs.append(module.launch(FusedKernel(prog, module.KERNEL, sim.rank(r)), **inputs))
    results = [sim.reduced[("ar", r)] for r in range(3)]
    assert torch.equal(results[0], results[1]) and torch.equal(results[0], results[2])
    assert not torch.isnan(results[0]).any()


def _sabotaged(prog: FusedProgram, tmp_path, pattern: str, replacement: str) -> FusedProgram:
    source = re.sub(pattern, replacement, prog.source)
    assert source != prog.source, pattern
    path = os.path.join(tmp_path, "sabotaged.py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location("syncopate_push_sabotaged", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dataclasses.replace(prog, source=source, path=path, jit=getattr(module, prog.kernel_name))


@pytest.mark.parametrize("order", ["late", "isolated"])
def test_a_tile_that_sums_without_waiting_reads_nan(tmp_path, order):
    prog = _sabotaged(program(DECODE, "decode_ar_kernel", 2), tmp_path,
                      r"\n +syn_spin\(flags, \(mine \+ tile\)[^\n]*\n", "\n            pass\n")
    results = run_simulated(load_workload(DECODE), 2, order, program=prog)
    assert not any(r.ok for r in results)


def test_a_tile_that_waits_for_another_tiles_flag_reads_nan(tmp_path):
    prog = _sabotaged(program(DECODE, "decode_ar_kernel", 2), tmp_path,
                      r"syn_spin\(flags, \(mine \+ tile\)", "syn_spin(flags, (mine + (tile + 1) % 3)")
    results = run_simulated(load_workload(DECODE), 2, "isolated", program=prog)
    assert not any(r.ok for r in results)


def test_a_flag_raised_before_the_push_is_caught(tmp_path):
    # the raise loop moved above the pushes: the peer's copy of the partial is not there when it is announced
    prog = program(DECODE, "decode_ar_kernel", 2)
    body = re.search(r"(    for q in range\(n\):\n(?:        .*\n)+?    tl\.debug_barrier\(\)\n)"
                     r"(    for q in range\(n\):\n(?:        .*\n)+?(?=    for q))", prog.source)
    assert body is not None
    swapped = body.group(2) + body.group(1)
    bad = _sabotaged(prog, tmp_path, re.escape(body.group(0)), swapped.replace("\\", "\\\\"))
    results = run_simulated(load_workload(DECODE), 2, "plan", program=bad)
    assert not any(r.ok for r in results)


def test_a_push_into_the_other_epochs_slot_is_caught(tmp_path):
    prog = _sabotaged(program(DECODE, "decode_ar_kernel", 2), tmp_path,
                      r"tl\.load\(table \+ 6 \* q \+ parity\)", "tl.load(table + 6 * q + 1 - parity)")
    results = run_simulated(load_workload(DECODE), 2, "plan", program=prog)
    assert not any(r.ok for r in results)  # the peers' slots of this epoch stay NaN


def test_a_grid_larger_than_the_sms_is_refused():
    prog = program(DECODE, "decode_ar_kernel", 2)
    assert residency_error(prog, (1, 132), 132) is None
    assert "133 programs for 132 SMs" in residency_error(prog, (1, 133), 132)
    os.environ["WORKLOAD_N"] = str(16 * 133)  # 133 column blocks
    try:
        with pytest.raises(AbiError, match=r"needs every program resident at once.*133 programs for 132 SMs"):
            run_simulated(load_workload(DECODE), 2, "plan", program=prog)
    finally:
        del os.environ["WORKLOAD_N"]


@pytest.mark.parametrize("rows", [8, 5])  # 5: M divisible by no world here
def test_decode_row_counts_up_to_a_tile(rows, monkeypatch):
    monkeypatch.setenv("WORKLOAD_M", str(rows))
    results = run_simulated(load_workload(DECODE), 4, "isolated", program=program(DECODE, "decode_ar_kernel", 4))
    assert all(r.ok for r in results), [(r.rank, r.error) for r in results]


def test_local_rank_pushes_nowhere_and_reads_zeros():
    workload = load_workload(EXAMPLE)
    inputs = workload.module.make_inputs(1, 2, 0)
    reference = workload.module.launch(workload.module.KERNEL, **inputs)
    fused = workload.module.launch(FusedKernel(program(EXAMPLE, "gemm_ar_kernel", 2), workload.module.KERNEL,
                                               LocalRank(None, 1, spin_limit=4)), **inputs)
    assert torch.equal(fused, reference)


def test_push_table_rows_name_each_peers_slot_and_flag():
    out = torch.zeros(3, 5)
    lay = PushLayout(3, 4, 10)
    staging = torch.zeros(3, *lay.staging_shape(out))  # per rank

    def slot(owner, parity, source):
        return staging[owner, parity, source]

    rows = lay.rows(1, out, slot, lambda q: 1000 * q + lay.flag(1, 0))
    assert rows[1] == [0, 0, 0, 0, 0, -1]
    per_slot, per_rank = 15, 2 * 3 * 15
    base = (staging.data_ptr() - out.data_ptr()) // 4
    # rank 1 writes rank 0's slot for source 1 (parity 0, then 1) and reads its own slots for source 0
    assert rows[0][:4] == [base + 0 * per_rank + 1 * per_slot, base + 0 * per_rank + 3 * per_slot + 1 * per_slot,
                           base + 1 * per_rank + 0 * per_slot, base + 1 * per_rank + 3 * per_slot]
    assert rows[0][4:] == [lay.flag(1, 0), lay.flag(0, 0)] and rows[2][4:] == [2000 + lay.flag(1, 0), lay.flag(2, 0)]
    assert lay.flag(2, 3) == 10 + 2 * 4 + 3 and lay.flag_end == 22
