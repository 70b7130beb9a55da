"""Persistent kernels: the tile loop is a 1-D grid of tiles the runtime orders.

``examples/ag_gemm_persistent.py`` launches 3 programs over the 12 tiles of
a 50 x 36 output (16 x 16 tiles); its tile loop's variable is remapped
through the order table, and the table covers the 12 tiles, not the 3
programs."""

import pytest
import torch

from syncopate.ir.analysis import deps
from syncopate.runtime.abi import AbiError, LaunchPlan, tile_grid
from syncopate.runtime.harness.check import compile_workload
from syncopate.runtime.harness.workload import load_workload

PARAMS = {"M": 50, "N": 36, "K": 40, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "PROGRAMS": 3, "stride_am": 40,
          "stride_ak": 1, "stride_bk": 36, "stride_bn": 1, "stride_cm": 36, "stride_cn": 1}


@pytest.fixture(scope="module")
def program():
    return compile_workload(load_workload("examples/ag_gemm_persistent.py"), 2)


def test_the_order_covers_the_tiles_with_local_rows_first(program):
    assert "tile_order" in program.abi
    for rank, local in ((0, range(0, 6)), (1, range(6, 12))):
        launch = LaunchPlan.build(program, PARAMS, (3,), rank)
        assert launch.grid == (3,) and launch.tiles == (12,)
        order = deps.tile_order(launch.graph, launch.tiles, 8)
        assert sorted(order) == list(range(12))
        # rank 1's rows [25, 50) are whole row blocks 2 and 3 (tiles 6..11): they run first;
        # rank 0's block 1 (rows 16..31) straddles its shard, so its tiles arrive with block 2's
        assert order[:3] == list(local)[:3]
        extra = launch.arguments(program, _sync())
        assert extra["syn_tile_order"].tolist() == order


def test_a_persistent_kernel_needs_a_1d_launch(program):
    with pytest.raises(AbiError, match=r"walks its tiles in a loop over program ids of axis 0; launch it on a 1-D grid"):
        tile_grid(program, PARAMS, (3, 2))
    assert tile_grid(program, PARAMS, (3, 1)) == (12,)


@pytest.mark.parametrize("step", [2, 5])
def test_a_tile_loop_must_step_by_the_program_count(program, step):
    """Stepping by more than the programs launched skips tiles (a produced chunk would never be announced, a
    reordered kernel would compute other tiles); by fewer, runs tiles twice."""
    with pytest.raises(AbiError, match=rf"PROGRAMS = {step} at this launch, on a grid of 3 programs: a persistent "
                                       r"tile loop must step by the number of programs launched"):
        tile_grid(program, {**PARAMS, "PROGRAMS": step}, (3,))
    assert tile_grid(program, {**PARAMS, "PROGRAMS": step}, (step,)) == (12,)


def test_a_grid_of_min_programs_tiles_stepping_by_more_runs_each_tile_once(program):
    """The tutorials' `grid = (min(NUM_SMS, tiles),)` with step NUM_SMS: on a small problem every program
    runs one tile, none is skipped."""
    assert tile_grid(program, {**PARAMS, "PROGRAMS": 16}, (12,)) == (12,)
    with pytest.raises(AbiError, match=r"PROGRAMS = 16 at this launch, on a grid of 11 programs"):
        tile_grid(program, {**PARAMS, "PROGRAMS": 16}, (11,))


def test_a_reduce_scatter_tile_loop_stepping_past_its_programs_is_refused_at_launch():
    """The reduce-scatter form: 3 programs stepping by 5 never write tiles 3, 4, 8, 9, so the host's count of
    each chunk's tile signals would never be reached (a hang on GPUs)."""
    program = compile_workload(load_workload("examples/gemm_rs_persistent.py"), 2)
    with pytest.raises(AbiError, match=r"PROGRAMS = 5 at this launch, on a grid of 3 programs"):
        LaunchPlan.build(program, {**PARAMS, "PROGRAMS": 5}, (3,), 0)


def test_an_ordinary_kernel_orders_its_launch_grid():
    program = compile_workload(load_workload("examples/ag_gemm.py"), 2)
    assert tile_grid(program, PARAMS, (4, 3)) == (4, 3)


def _sync():
    from syncopate.runtime.abi import SyncState

    return SyncState.allocate(64, torch.device("cpu"))


def test_a_workload_may_import_its_kernel():
    """gemm_rs_persistent.py takes ag_gemm_persistent.py's kernel: it is read from the file that defines it."""
    workload = load_workload("examples/gemm_rs_persistent.py")
    program = compile_workload(workload, 2)
    assert program.kernel.sym_name.data == "gemm_persistent_kernel"
    assert [p.collective for p in program.plans] == ["reduce-scatter"]
    launch = LaunchPlan.build(program, PARAMS, (3,), 1)
    counts = deps.signal_counts(launch.graph)
    # the chunks rank 1 produces: rows [25, 50) (its own) meet row blocks 1-3, rows [0, 25) blocks 0-1; each row
    # block is 3 tiles of the loop's 12, so the runtime waits for 9 and 6 signals (one per tile, not per program)
    mine = {c.id: counts[("rs", c.id)] for c in launch.chunks["rs"] if c.src == 1}
    assert mine == {1: 9, 3: 6}
