"""The reference check every variant passes before it is timed.

An element passes when ``|out - ref| <= atol + rtol * |ref|`` with
``rtol = 2e-2`` and ``atol = 2e-2 * rms(ref)``: the absolute part is scaled
to the result's magnitude (a GEMM over K standard-normal terms has entries
of size ~sqrt(K)), so the same check is sound for every shape. bf16 rounds
an output to within 2^-9 of its magnitude, far inside the bound; a
missing chunk, stale rows or a wrong reduction are off by ~rms(ref) and
fail. NaN (the poison) never passes.

A reduction that sums W partials in the output's dtype, rounding each
partial and the running sum after every addition (the fused epilogue and
stream reductions, NCCL's ring), is off by up to ``W * u * sum_i |p_i|``
per element (``u`` the dtype's unit roundoff: W roundings of partials and
W - 1 of running sums, each at most ``u`` times a magnitude no larger
than ``sum_i |p_i|``). On an element whose partials nearly cancel that is
many times ``u * rms(ref)``: at W = 4, 4096 x 2048 x 4096 in bf16, one of
4,194,304 elements is off by 3.49e-2 x rms(ref), reproduced exactly on the
CPU (test/unit/bench/test_staged_sum_bound.py). Such checks pass
``rounding=staged_sum_rounding(...)``, which widens each element's bound
by exactly that much and no more: a lost or doubled partial is off by
``|p_i|``, still far outside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

RTOL = 2e-2
ATOL_SCALE = 2e-2


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    error: float  # max |out - ref| / rms(ref); nan when the output holds NaN
    reason: str  # empty when ok


UNIT_ROUNDOFF = {torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11, torch.float32: 2.0 ** -24}


def staged_sum_rounding(abs_partials: torch.Tensor, world: int, dtype: torch.dtype) -> torch.Tensor:
    """The rounding a sum of ``world`` partials in ``dtype`` may add per
    element, given ``abs_partials = sum_i |p_i|`` (see the module doc)."""
    return world * UNIT_ROUNDOFF[dtype] * abs_partials.float()


def check_result(out: torch.Tensor | None, ref: torch.Tensor, rtol: float = RTOL,
                 atol_scale: float = ATOL_SCALE, rounding: torch.Tensor | None = None) -> CheckResult:
    """Compare ``out`` with the fp32 reference ``ref`` (see the module doc);
    ``rounding``: a further per-element allowance (:func:`staged_sum_rounding`)."""
    if not isinstance(out, torch.Tensor):
        return CheckResult(False, math.nan, f"the variant returned {type(out).__name__}, not a tensor")
    if tuple(out.shape) != tuple(ref.shape):
        return CheckResult(False, math.nan, f"shape {tuple(out.shape)} differs from the reference's {tuple(ref.shape)}")
    ref = ref.float()
    got = out.to(device=ref.device, dtype=torch.float32)
    scale = float(ref.pow(2).mean().sqrt()) if ref.numel() else 1.0
    scale = scale if scale > 0 and math.isfinite(scale) else 1.0
    diff = (got - ref).abs()
    bound = atol_scale * scale + rtol * ref.abs()
    if rounding is not None:
        bound = bound + rounding.to(device=ref.device, dtype=torch.float32)
    bad = int((~(diff <= bound)).sum())
    nans = int(torch.isnan(got).sum())
    error = math.nan if nans else (float(diff.max()) / scale if diff.numel() else 0.0)
    if bad == 0:
        return CheckResult(True, error, "")
    what = f"{nans} NaN (poison) elements" if nans else f"{bad} of {ref.numel()} elements off"
    return CheckResult(False, error, f"{what}, max error {error:.2e} x rms(ref)")


def poison(*tensors: torch.Tensor | None) -> None:
    """Fill floating-point outputs with NaN so unwritten elements fail the check."""
    for t in tensors:
        if t is not None and t.is_floating_point():
            t.fill_(float("nan"))


def poison_allocator(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> None:
    """Leave a NaN block of this size in the caching allocator.

    For variants whose library call allocates its own output (async-TP):
    the next allocation of this size is most likely this block, so stale
    correct data from an earlier variant cannot pass the check by accident.
    """
    block = torch.full(shape, float("nan"), dtype=dtype, device=device)
    del block
