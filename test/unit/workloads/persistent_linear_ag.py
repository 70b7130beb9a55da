"""All-gather of A's rows into the library's persistent GEMM
(kernels/gemm_bf16_persistent.py) with B an ``nn.Linear`` weight
(``B_NK``: W is N x K, the kernel reads its blocks through a tensor
descriptor and multiplies them transposed), as ``syncopate.ops``
launches it: fewer programs than tiles, an L2 group height that leaves a
short last group, and a row count whose last tile is partial."""

import torch

from syncopate.kernels.gemm_bf16_persistent import gemm_persistent_kernel
from syncopate.runtime.gpu.scratch import ensure_triton_allocator
from syncopate.runtime.workload import shard_bounds

M_GLOBAL, K_DIM, N_DIM = 40, 32, 48
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16
PROGRAMS, GROUP_M = 3, 2

KERNEL = gemm_persistent_kernel
PLANS = ["all-gather{tensor=a_ptr dim=0}"]
COLLECTIVES = {"a_ptr": "a"}


def make_inputs(rank, world, seed):
    """Rank's shard of A's rows and the weight (the same on every rank)."""
    _, rows = shard_bounds(M_GLOBAL, world, rank)
    a = torch.randn(rows, K_DIM, generator=torch.Generator().manual_seed(seed * 1000 + rank)).to(torch.float16)
    w = torch.randn(N_DIM, K_DIM, generator=torch.Generator().manual_seed(seed * 1000 + 999)).to(torch.float16)
    return {"a": a, "w": w}


def launch(kernel, a, w):
    """A @ W^T with A the full (gathered) M x K matrix."""
    return linear(kernel, a, w, PROGRAMS)


def linear(kernel, a, w, programs):
    """A @ W^T (fp32) by the persistent kernel on ``programs`` programs, W
    read as stored (``B_NK``), as ``syncopate.ops`` launches it."""
    ensure_triton_allocator()
    M, K = a.shape
    b = w.t()
    c = torch.empty(M, b.shape[1], dtype=torch.float32, device=a.device)
    kernel[(programs,)](a, b, c, M, b.shape[1], K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                        PROGRAMS=programs, GROUP_M=GROUP_M, FLATTEN=False, B_NK=True)
    return c
