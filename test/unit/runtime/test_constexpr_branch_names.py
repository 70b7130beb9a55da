"""A name bound in one arm of a constexpr ``if`` and used under the same
condition (issue 38, idiom A: Liger rms_norm / cross_entropy / dyt, FlagGems,
attorch): it used to be "unsupported name `w`". The fused kernel matches
the unfused one on every simulated rank with the weight and without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from fused_matches import assert_fuses_and_matches

from syncopate.runtime.harness.workload import load_workload

PATH = Path(__file__).resolve().parents[1] / "workloads" / "constexpr_branch_rows.py"


@pytest.mark.parametrize("has_weight", [True, False])
def test_a_one_arm_name_fuses_and_matches(monkeypatch, has_weight):
    workload = load_workload(str(PATH))
    monkeypatch.setattr(workload.module, "HAS_WEIGHT", has_weight)
    assert_fuses_and_matches(workload, 2)
