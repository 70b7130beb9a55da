"""Rows of a tensor along one dim, as both worlds move them (the simulated
ranks and the GPU backends alike)."""

from __future__ import annotations

import torch


def rows(t: torch.Tensor, dim: int, lo: int, hi: int) -> torch.Tensor:
    """Rows ``[lo, hi)`` of ``t`` along ``dim`` (a view)."""
    return t.narrow(dim, lo, hi - lo)
