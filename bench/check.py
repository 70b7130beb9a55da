"""The reference check every variant passes before it is timed.

An element passes when ``|out - ref| <= atol + rtol * |ref|`` with
``rtol = 2e-2`` and ``atol = 2e-2 * rms(ref)``: the absolute part is scaled
to the result's magnitude (a GEMM over K standard-normal terms has entries
of size ~sqrt(K)), so the same check is sound for every shape. bf16 rounds
an output to within 2^-9 of its magnitude and a bf16 reduce-scatter of W
partials adds about W * 2^-9 * rms(partial), both far inside the bound;
a missing chunk, stale rows or a wrong reduction are off by ~rms(ref) and
fail. NaN (the poison) never passes.
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


def check_result(out: torch.Tensor | None, ref: torch.Tensor, rtol: float = RTOL,
                 atol_scale: float = ATOL_SCALE) -> CheckResult:
    """Compare ``out`` with the fp32 reference ``ref`` (see the module doc)."""
    if not isinstance(out, torch.Tensor):
        return CheckResult(False, math.nan, f"the variant returned {type(out).__name__}, not a tensor")
    if tuple(out.shape) != tuple(ref.shape):
        return CheckResult(False, math.nan, f"shape {tuple(out.shape)} differs from the reference's {tuple(ref.shape)}")
    ref = ref.float()
    got = out.to(device=ref.device, dtype=torch.float32)
    scale = float(ref.pow(2).mean().sqrt()) if ref.numel() else 1.0
    scale = scale if scale > 0 and math.isfinite(scale) else 1.0
    diff = (got - ref).abs()
    bad = int((~(diff <= atol_scale * scale + rtol * ref.abs())).sum())
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
