"""A constexpr row stride named by the plan (issue 38, H: ``X += row * N``
with ``N: tl.constexpr``; the refusal asked for ``stride=N``, which then
refused again). The fused kernel matches the unfused one on every simulated
rank; without ``stride=`` the refusal still names the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.utils.exceptions import PassFailedException

from syncopate.runtime.check import compile_workload, run_simulated
from syncopate.runtime.sim import DELIVERY_ORDERS
from syncopate.runtime.workload import load_workload

PATH = Path(__file__).resolve().parents[1] / "workloads" / "constexpr_stride_rows.py"


@pytest.mark.parametrize("world", [2, 3])
def test_a_named_constexpr_row_stride_fuses_and_matches(world):
    workload = load_workload(str(PATH))
    program = compile_workload(workload, world)
    for order in DELIVERY_ORDERS:
        results = run_simulated(workload, world, order, 0, program)
        assert all(r.ok for r in results), (order, [(r.rank, r.max_error) for r in results])
        assert sum(r.polls for r in results) > 0


def test_without_the_stride_the_refusal_names_it():
    workload = load_workload(str(PATH))
    with pytest.raises(PassFailedException, match="give size= and stride= of the dim the plan splits"):
        compile_workload(workload, 2, plan_specs=["all-gather{tensor=X dim=0 size=M}"])
