"""The library's shared-A GEMM (kernels/gemm_shared_a.py), which
``syncopate.ops.all_gather_matmul`` fuses when given two or three B's,
fused with an all-gather of A's rows on simulated ranks
(test/unit/workloads/shared_a_gemm.py: Q, K and V widths that leave
partial column tiles). Every program picks its B with scalar selects, so
its waits must still cover the rows of A it reads, whichever B it is."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.harness.workload import load_workload
from syncopate.runtime.sim.delivery import DELIVERY_ORDERS, SimulationError

WORKLOAD = load_workload(str(Path(__file__).resolve().parents[1] / "workloads" / "shared_a_gemm.py"))


@pytest.mark.parametrize("world", [2, 3, 4])
def test_every_b_matches_under_every_delivery_order(world):
    """Every delivery order at W = 2 and 3; at W = 4 the two that expose a
    missing wait (late, isolated)."""
    program = compile_workload(WORKLOAD, world)
    for order in DELIVERY_ORDERS if world < 4 else ("late", "isolated"):
        results = run_simulated(WORKLOAD, world, order, 0, program)
        assert all(r.ok for r in results), (order, [(r.rank, r.max_error) for r in results])
        assert sum(r.polls for r in results) > 0, (order, "the fused kernel never waited")


def test_weights_stored_k_by_n_match(monkeypatch):
    """``B_NK = False``: B's stored K x N, the other layout the op passes."""
    monkeypatch.setattr(WORKLOAD.module, "B_NK", False)
    program = compile_workload(WORKLOAD, 3)
    for order in ("late", "isolated"):
        results = run_simulated(WORKLOAD, 3, order, 0, program)
        assert all(r.ok for r in results), (order, [(r.rank, r.max_error) for r in results])


def test_every_b_range_waits_for_its_rows():
    """Without waits the rows of late chunks reach every B's output."""
    program = compile_workload(WORKLOAD, 3, "overlap{waits=false}")
    results = run_simulated(WORKLOAD, 3, "late", program=program, sanitize=False)
    assert any(math.isnan(r.max_error) for r in results), "poisoned rows should reach the output"
    with pytest.raises(SimulationError, match="without waiting for it"):
        run_simulated(WORKLOAD, 3, "late", program=program)


def test_the_waits_are_the_plain_gemms():
    """One wait per tile, for its BLOCK_M rows of A, before the K loop:
    the selects of B do not reach A's address."""
    source = compile_workload(WORKLOAD, 2).source
    assert source.count("syn_wait_span(") == 2, source  # the call and the helper's definition
