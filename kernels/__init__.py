"""Triton kernels of the library: the GEMM ``syncopate.ops`` fuses
(``gemm_bf16.py``), and the kernels the benchmark fuses and uses as its
local-Triton baseline (``bench/`` imports them; they import nothing of
syncopate, so the library does not depend on the benchmark).

Each kernel is a plain ``@triton.jit`` function in the subset syncopate's
frontend accepts (no autotune decorator, no early return, no ternaries), so
the very same source is both the unfused baseline and the input of
``compile_fused``.
"""

import os


def source_path(file: str) -> str:
    """The path of kernel source ``file`` of this folder (what ``compile_fused`` reads)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), file)


def b_layout(b) -> bool | None:
    """The layout of a GEMM's B (K x N) as the library kernels' ``B_NK``
    constexpr names it: True where B is ``W.t()`` for a contiguous N x K
    ``W``, as ``nn.Linear`` keeps its weight (and torch TP's column-wise
    layers pass it); False where B is itself contiguous; None otherwise."""
    k, n = b.shape
    if b.stride() == (1, k):
        return True
    if b.stride() == (n, 1):
        return False
    return None
