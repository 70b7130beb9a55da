"""Launching the benchmark's Triton GEMM (``kernels/gemm_bf16.py``).

:func:`launch_gemm` takes the kernel as an argument so the same launch code
runs the original ``@triton.jit`` kernel (local Triton baseline) and a
syncopate :class:`FusedKernel` (which is called exactly like it).
Triton is imported lazily: ``--cpu`` must set TRITON_INTERPRET first.
"""

from __future__ import annotations

import os
from typing import Any

import torch

from syncopate.bench.configs import GemmConfig

KERNEL_NAME = "gemm_kernel"


def kernel_path() -> str:
    """The kernel's source file (what ``compile_fused`` reads)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels", "gemm_bf16.py")


def gemm_kernel() -> Any:
    """The original ``@triton.jit`` GEMM."""
    from syncopate.bench.kernels.gemm_bf16 import gemm_kernel as kernel

    return kernel


def grid(m: int, n: int, config: GemmConfig) -> tuple[int, int]:
    return (-(-m // config.block_m), -(-n // config.block_n))


def launch_gemm(kernel: Any, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, config: GemmConfig) -> None:
    """``c = a @ b`` with ``kernel`` (the original or a fused one), on the current stream."""
    m, k = a.shape
    k2, n = b.shape
    if k != k2 or tuple(c.shape) != (m, n):
        raise ValueError(f"launch_gemm: shapes a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)} do not match")
    kernel[grid(m, n, config)](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                               c.stride(0), c.stride(1), **config.constexprs(), **config.launch_options())
