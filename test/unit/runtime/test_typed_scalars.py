"""``tl.full((), value, dtype)``: a 0-d typed value (issue 38, idiom E;
it was an internal VerifyException). The fused row-wise kernel that uses
one as its load's ``other`` and as a scale matches the unfused one on
every simulated rank, under every delivery order, with the sanitizer on."""

from __future__ import annotations

from pathlib import Path

import pytest

from syncopate.runtime.check import compile_workload, run_simulated
from syncopate.runtime.sim import DELIVERY_ORDERS
from syncopate.runtime.workload import load_workload

WORKLOAD = load_workload(str(Path(__file__).resolve().parents[1] / "workloads" / "typed_scalar_rows.py"))


@pytest.mark.parametrize("world", [2, 3])
def test_a_kernel_with_0d_fulls_fuses_and_matches(world):
    program = compile_workload(WORKLOAD, world)
    for order in DELIVERY_ORDERS:
        results = run_simulated(WORKLOAD, world, order, 0, program)
        assert all(r.ok for r in results), (order, [(r.rank, r.max_error) for r in results])
        assert sum(r.polls for r in results) > 0, "the fused kernel never waited"
