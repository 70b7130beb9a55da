"""The reference check's allowance for sums of partials rounded in the
output's dtype (bench/check.py, ``staged_sum_rounding``).

The GPU tests' one W = 4 failure (``rs back-to-back graph 8x20
reduce=epilogue``: "1 of 4194304 elements off, max error 3.49e-02 x
rms(ref)", the same element in every launch) is reproduced here exactly by
emulating the fused epilogue's arithmetic: each rank's partial rounded to
bf16, the peers' staged partials in bf16, and the running sum rounded to
bf16 after each peer, in table order (lowering/device_helpers.py,
``syn_reduce_span``). It is rounding, not a race: with the allowance the
element passes, and a lost or doubled partial still fails everywhere."""

from __future__ import annotations

import pytest
import torch

from syncopate.bench.check import check_result, staged_sum_rounding


def _bf16(t: torch.Tensor) -> torch.Tensor:
    return t.bfloat16().float()


def _epilogue_sum(partials: list[torch.Tensor]) -> torch.Tensor:
    value = _bf16(partials[0])
    for part in partials[1:]:
        value = _bf16(value + _bf16(part))
    return value


def test_the_w4_epilogue_failure_is_rounding_and_within_the_allowance():
    m, k, n, world = 4096, 2048, 4096, 4  # the GPU test's shapes, seed and rank 0's rows
    gen = torch.Generator().manual_seed(5)
    inputs = [(torch.randn(m, k, generator=gen), torch.randn(k, n, generator=gen) / 32) for _ in range(world)]
    rows = slice(0, m // world)
    reference = sum(a[rows] @ b for a, b in inputs)
    partials = [_bf16(a[rows]) @ _bf16(b) for a, b in inputs]
    got = _epilogue_sum(partials)
    assert check_result(got, reference).reason == "1 of 4194304 elements off, max error 3.49e-02 x rms(ref)"
    rounding = staged_sum_rounding(sum(p.abs() for p in partials), world, torch.bfloat16)
    assert check_result(got, reference, rounding=rounding).ok


@pytest.mark.parametrize("world", [2, 3, 4, 8])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_allowance_holds_for_cancelling_partials_and_catches_lost_ones(world, seed):
    gen = torch.Generator().manual_seed(seed)
    base = torch.randn(256, 256, generator=gen) * 8
    # partials that nearly cancel: large running sums, a small result
    partials = [base * (1 if i % 2 == 0 else -1) + torch.randn(256, 256, generator=gen) for i in range(world)]
    reference = sum(partials)
    rounding = staged_sum_rounding(sum(p.abs() for p in partials), world, torch.bfloat16)
    assert check_result(_epilogue_sum(partials), reference, rounding=rounding).ok
    lost = _epilogue_sum(partials[:-1])
    doubled = _epilogue_sum(partials + partials[-1:])
    for wrong in (lost, doubled):
        result = check_result(wrong, reference, rounding=rounding)
        assert not result.ok and int(result.reason.split(" of ")[0]) > 0.5 * reference.numel()


def test_the_bench_checks_reduce_scatter_rows_with_the_allowance():
    """gemm-rs problems carry the allowance of their reduced rows: every
    partial's magnitude, summed over the ranks, times W and the dtype's unit
    roundoff; the all-gather problems need none."""
    from syncopate.bench.problem import make_problem
    from syncopate.bench.shapes import AG_GEMM, GEMM_RS, Shape

    world = 4
    rs = make_problem(Shape(GEMM_RS, "t", 64, 32, 16), world, 1, torch.device("cpu"), torch.bfloat16)
    magnitude = torch.zeros_like(rs.references["out"])
    for s in range(world):
        other = make_problem(Shape(GEMM_RS, "t", 64, 32, 16), world, s, torch.device("cpu"), torch.bfloat16)
        magnitude += (other.a[16:32].float() @ other.b.float()).abs()
    torch.testing.assert_close(rs.rounding, world * 2.0 ** -8 * magnitude)
    ag = make_problem(Shape(AG_GEMM, "t", 64, 32, 16), world, 1, torch.device("cpu"), torch.bfloat16)
    assert ag.rounding is None
