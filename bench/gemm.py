"""Launching the benchmark's Triton GEMM (``kernels/gemm_bf16.py``).

:func:`launch_gemm` takes the kernel as an argument so the same launch code
runs the original ``@triton.jit`` kernel (local Triton baseline) and a
syncopate :class:`FusedKernel` (which is called exactly like it).
Triton is imported lazily: ``--cpu`` must set TRITON_INTERPRET first.
"""

from __future__ import annotations

import importlib
from typing import Any

import torch

from syncopate.bench.configs import GemmConfig
from syncopate.bench.kernels import source_path

_KERNELS = {"ptr": ("gemm_bf16", "gemm_kernel"), "tma": ("gemm_bf16_tma", "gemm_tma_kernel")}


def kernel_name(config: GemmConfig) -> str:
    return _KERNELS[config.kernel][1]


def kernel_path(config: GemmConfig) -> str:
    """The kernel's source file (what ``compile_fused`` reads)."""
    return source_path(_KERNELS[config.kernel][0] + ".py")


def gemm_kernel(config: GemmConfig) -> Any:
    """The original ``@triton.jit`` GEMM of ``config``."""
    module = importlib.import_module(f"syncopate.bench.kernels.{_KERNELS[config.kernel][0]}")
    if config.kernel == "tma":
        _scratch_allocator()
    return getattr(module, kernel_name(config))


def _scratch_allocator() -> None:
    """Device-side tensor descriptors need global scratch memory from the host."""
    import triton

    def alloc(size: int, alignment: int, stream: Any) -> torch.Tensor:
        return torch.empty(size, dtype=torch.int8, device="cuda" if torch.cuda.is_available() else "cpu")

    triton.set_allocator(alloc)


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
