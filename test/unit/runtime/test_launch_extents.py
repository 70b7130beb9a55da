"""Plan extents read from the launched tensor (ir/plans/launch_extents.py,
runtime/abi.launch_env): a row-wise kernel with no row-count parameter fuses
with no size=, and one compiled program runs at every row count."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from syncopate.runtime.abi import AbiError, LaunchPlan, launch_env
from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.fused import LaunchFacts
from syncopate.runtime.gpu.rank import launch_keys
from syncopate.runtime.sim.delivery import DELIVERY_ORDERS
from syncopate.runtime.harness.workload import load_workload

WORKLOAD = load_workload(str(Path(__file__).resolve().parents[1] / "workloads" / "rowwise_rows.py"))
COLS = WORKLOAD.module.COLS


def _params(rows: int, out_rows: int | None = None) -> dict:
    x = torch.randn(rows, COLS)
    return {"X": x, "Y": torch.empty(out_rows or rows, COLS), "stride": COLS, "N_COLS": COLS, "eps": 1e-6,
            "BLOCK": 32}


@pytest.mark.parametrize("world, orders", [(2, DELIVERY_ORDERS), (3, ("late", "isolated"))])
def test_one_compiled_program_runs_at_two_row_counts(world, orders):
    """Seed s gathers ROWS + s rows: 6 and 7 (even and uneven cuts for W = 2, 3)."""
    program = compile_workload(WORKLOAD, world)
    for seed in (0, 1):
        for order in orders:
            results = run_simulated(WORKLOAD, world, order, seed, program)
            assert all(r.ok for r in results), (seed, order, [(r.rank, r.max_error) for r in results])
            assert sum(r.polls for r in results) > 0, "the fused kernel never waited"


def test_chunk_tables_follow_the_launched_rows():
    program = compile_workload(WORKLOAD, 2)
    for rows in (6, 7):
        launch = LaunchPlan.build(program, _params(rows), (rows,), 0)
        local = sorted((c.lo, c.hi) for c in launch.chunks["ag"] if c.is_local)
        assert local == [(0, rows // 2), (rows // 2, rows)]
        assert launch_env(program, _params(rows))["M"] == rows


def test_a_literal_size_that_disagrees_with_the_tensor_is_an_error():
    program = compile_workload(WORKLOAD, 2, plan_specs=["all-gather{tensor=X dim=0 size=6}"])
    assert all(r.ok for r in run_simulated(WORKLOAD, 2, "late", 0, program))
    with pytest.raises(AbiError, match=r"covers rows \[0, 6\) of 'X'.* has 7 .*size=6 is fixed when it is compiled"):
        run_simulated(WORKLOAD, 2, "late", 1, program)


def test_one_extent_read_from_two_tensors_must_agree():
    program = compile_workload(WORKLOAD, 2, plan_specs=["all-gather{tensor=X dim=0}", "reduce-scatter{tensor=Y dim=0}"])
    assert launch_env(program, _params(6))["M"] == 6
    with pytest.raises(AbiError, match=r"read extent M from two tensors of different lengths: M = X.shape\[0\] "
                                       r"\(plan @ag\) is 6, M = Y.shape\[0\] \(plan @rs\) is 8"):
        launch_env(program, _params(6, out_rows=8))


def test_an_extent_needs_a_tensor_argument():
    program = compile_workload(WORKLOAD, 2)
    with pytest.raises(AbiError, match="takes its extent M from the shape of 'X', but the launch passes int"):
        launch_env(program, {**_params(6), "X": 6})


def test_the_tensor_must_have_the_layout_the_kernel_indexes():
    """A view whose rows are not the kernel's (its stride differs from the
    kernel's stride argument) cannot lend its shape as the row count."""
    program = compile_workload(WORKLOAD, 2)
    with pytest.raises(AbiError, match=r"reads its extent M from 'X'.shape\[0\], but the kernel steps dim 0 of 'X' by "
                                       rf"stride=stride={2 * COLS} while the launch's 'X' has stride {COLS} there"):
        launch_env(program, {**_params(6), "stride": 2 * COLS})
    flat = torch.randn(6 * COLS)  # the element count is no row count
    with pytest.raises(AbiError, match="has stride 1 there"):
        launch_env(program, {**_params(6), "X": flat})


def test_gpu_launches_of_other_row_counts_get_their_own_signal_pad():
    """A GPU signal pad counts one configuration's launches: two row counts
    (other chunk bounds, other signals per chunk) on the same grid and
    scalars must not share one."""
    program = compile_workload(WORKLOAD, 2)
    facts: LaunchFacts = program.launch_facts
    assert facts.shaped == frozenset({"X"})
    six, seven = (launch_keys(program, facts, (8,), _params(rows), ())[0] for rows in (6, 7))
    again = launch_keys(program, facts, (8,), _params(6), ())[0]
    assert six != seven and six == again
