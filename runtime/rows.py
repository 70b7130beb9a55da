"""Rows of a tensor along one dim, as both worlds move them (the simulated
ranks and the GPU backends alike), and the extent of a tensor's storage."""

from __future__ import annotations

import torch


def rows(t: torch.Tensor, dim: int, lo: int, hi: int) -> torch.Tensor:
    """Rows ``[lo, hi)`` of ``t`` along ``dim`` (a view)."""
    return t.narrow(dim, lo, hi - lo)


def storage_span(t: torch.Tensor) -> int:
    """Elements from ``t``'s first to one past its last (0 for an empty tensor)."""
    return 0 if t.numel() == 0 else 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))
