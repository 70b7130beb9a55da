"""The library's persistent GEMM with B read as ``nn.Linear`` keeps its
weight (kernels/gemm_bf16_persistent.py, ``B_NK``), which
``syncopate.ops`` runs on Hopper, fused on simulated ranks with the ops'
two plans: an all-gather of A's rows (test/unit/workloads/
persistent_linear_ag.py) and a reduce-scatter of C's rows in two blocks
(persistent_linear_rs.py). The tile loop's waits and signals must follow
the swizzled tiles whichever way B is read."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.harness.workload import load_workload
from syncopate.runtime.sim.delivery import DELIVERY_ORDERS, SimulationError

WORKLOADS = Path(__file__).resolve().parents[1] / "workloads"


@pytest.mark.parametrize("kind", ["ag", "rs"])
@pytest.mark.parametrize("world", [2, 3, 4])
def test_linear_weights_match_under_every_delivery_order(kind, world):
    """Every delivery order at W = 2 and 3; at W = 4 the two that expose a
    missing wait or an early signal (late, isolated)."""
    workload = load_workload(str(WORKLOADS / f"persistent_linear_{kind}.py"))
    program = compile_workload(workload, world)
    for order in DELIVERY_ORDERS if world < 4 else ("late", "isolated"):
        results = run_simulated(workload, world, order, 0, program)
        assert all(r.ok for r in results), (order, [(r.rank, r.max_error) for r in results])


def test_the_gathered_rows_are_waited_for():
    """Without waits the late chunks' poisoned rows reach the output, and
    the sanitizer names the read."""
    workload = load_workload(str(WORKLOADS / "persistent_linear_ag.py"))
    program = compile_workload(workload, 3, "overlap{waits=false}")
    results = run_simulated(workload, 3, "late", program=program, sanitize=False)
    assert any(math.isnan(r.max_error) for r in results), "poisoned rows should reach the output"
    with pytest.raises(SimulationError, match="without waiting for it"):
        run_simulated(workload, 3, "late", program=program)
