"""``tl.full((), value, dtype)``: a 0-d typed value (issue 38, idiom E;
it was an internal VerifyException). The fused row-wise kernel that uses
one as its load's ``other`` and as a scale matches the unfused one on
every simulated rank, under every delivery order, with the sanitizer on."""

from __future__ import annotations

from pathlib import Path

import pytest

from fused_matches import assert_fuses_and_matches

from syncopate.runtime.harness.workload import load_workload

WORKLOAD = load_workload(str(Path(__file__).resolve().parents[1] / "workloads" / "typed_scalar_rows.py"))


@pytest.mark.parametrize("world", [2, 3])
def test_a_kernel_with_0d_fulls_fuses_and_matches(world):
    assert_fuses_and_matches(WORKLOAD, world)
