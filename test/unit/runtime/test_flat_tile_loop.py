"""Persistent kernels written as one flat loop over (tile, k-step) pairs
(corpus ``matmul_persistent_flat``, issue 38): each launch lists every
program's tiles from the loop's bounds (``chunk.flat_tile_loop``), so the
host counts exactly the signals the device sends, and refuses a launch
whose tiles are not each tile once."""

import pytest

from syncopate.ir.analysis import deps
from syncopate.ir.contract import FLAT_TILE_LOOP_ATTR
from syncopate.runtime.abi import AbiError, LaunchPlan, tile_grid
from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.harness.workload import load_workload

CORPUS = "test/corpus/matmul_persistent_flat.py"
PARAMS = {"M": 40, "N": 40, "K": 40, "BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16, "NUM_SMS": 4,
          "stride_am": 40, "stride_ak": 1, "stride_bk": 40, "stride_bn": 1, "stride_cm": 40, "stride_cn": 1}


@pytest.fixture(scope="module")
def program():
    return compile_workload(load_workload(CORPUS), 2)


def test_the_kernel_records_its_flat_loop(program):
    attr = {k: v.data for k, v in program.kernel.attributes[FLAT_TILE_LOOP_ATTR].data.items()}
    assert attr["first"] == "(pid0 - NUM_SMS)" and attr["step"] == "NUM_SMS" and attr["k_steps"] == "cdiv(K, BLOCK_SIZE_K)"
    assert "select(lt(pid0, " in attr["ub"]  # `if start_pid < num_tiles % NUM_SMS: tiles_per_SM += 1`


def test_nine_tiles_over_four_programs_each_run_once(program):
    """9 tiles, 4 programs: program 0 runs 3 tiles, the others 2; every chunk's count is its row tiles x 3."""
    assert tile_grid(program, PARAMS, (4,)) == (9,)
    launch = LaunchPlan.build(program, PARAMS, (4,), 0)
    counts = deps.signal_counts(launch.graph)
    # rows [0, 20) of rank 0: row tiles 0 and 1 (rows 0..31) x 3 column tiles
    assert counts[("rs", 0)] == 6
    assert sorted(deps.tile_order(launch.graph, launch.tiles, 8)) == list(range(9))


@pytest.mark.parametrize("programs", [3, 5])
def test_a_grid_other_than_the_counter_step_is_refused(program, programs):
    """The counter steps by NUM_SMS = 4: 3 programs skip tiles 3 and 7 (their chunks would never complete);
    with 5, program 4 repeats tiles 4 and 8 of program 0 (their chunks would be announced early)."""
    with pytest.raises(AbiError, match=r"flat loop over \(tile, k-step\) pairs runs, on a grid of "
                                       rf"{programs} programs, tiles that are not each of 0 \.\. n-1 once"):
        tile_grid(program, PARAMS, (programs,))


def test_k_zero_runs_no_tile_and_the_launch_says_so(program):
    """K == 0: k_tiles == 0, the loop runs zero times and stores nothing (as the original kernel); the host
    counts no tile either, and refuses the launch because no tile writes the reduce-scattered rows (they
    would be sent with whatever C held) instead of waiting for signals that never come."""
    params = {**PARAMS, "K": 0}
    assert tile_grid(program, params, (4,)) == (0,)
    with pytest.raises(AbiError, match=r"rows \[0, 20\) of 'c_ptr' in chunk 0 of @rs .* are written by no tile"):
        LaunchPlan.build(program, params, (4,), 0)


def test_k_zero_end_to_end_is_refused_not_hung():
    workload = load_workload(CORPUS)
    workload.module.K_SLICE = 0
    try:
        with pytest.raises(AbiError, match=r"written by no tile of this launch"):
            run_simulated(workload, 2, "late", 0)
    finally:
        workload.module.K_SLICE = 40
