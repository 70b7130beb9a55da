"""A constexpr row stride named by the plan (issue 38, H: ``X += row * N``
with ``N: tl.constexpr``; the refusal asked for ``stride=N``, which then
refused again). The fused kernel matches the unfused one on every simulated
rank; without ``stride=`` the refusal still names the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.utils.exceptions import PassFailedException

from fused_matches import assert_fuses_and_matches

from syncopate.runtime.harness.check import compile_workload
from syncopate.runtime.harness.workload import load_workload

PATH = Path(__file__).resolve().parents[1] / "workloads" / "constexpr_stride_rows.py"


@pytest.mark.parametrize("world", [2, 3])
def test_a_named_constexpr_row_stride_fuses_and_matches(world):
    assert_fuses_and_matches(load_workload(str(PATH)), world)


def test_without_the_stride_the_refusal_names_it():
    workload = load_workload(str(PATH))
    with pytest.raises(PassFailedException, match="give size= and stride= of the dim the plan splits"):
        compile_workload(workload, 2, plan_specs=["all-gather{tensor=X dim=0 size=M}"])


COMBINED = Path(__file__).resolve().parents[1] / "workloads" / "constexpr_stride_combined.py"


@pytest.mark.parametrize("long_indexing", [False, True])
@pytest.mark.parametrize("world", [2, 3])
def test_a_named_constexpr_row_stride_inside_the_offset_fuses_and_matches(world, long_indexing):
    workload = load_workload(str(COMBINED))
    workload.module.LONG = long_indexing
    assert_fuses_and_matches(workload, world)
