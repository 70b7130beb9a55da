"""The library's persistent GEMM (kernels/gemm_bf16_persistent.py) with B
an ``nn.Linear`` weight (``B_NK``), its output reduce-scattered in two
blocks of rows, as ``syncopate.ops.matmul_reduce_scatter`` scatters a
``[2, s, h]`` activation on ``s``: each rank computes its partial over its
slice of K, and rank r owns the r-th slice of each block. Row tiles of 16
straddle the blocks' and the owners' bounds."""

import torch

from syncopate.kernels.gemm_bf16_persistent import gemm_persistent_kernel
from syncopate.runtime.gpu.scratch import ensure_triton_allocator

M_DIM, N_DIM, K_LOCAL = 48, 40, 32
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16
PROGRAMS, GROUP_M = 5, 2

KERNEL = gemm_persistent_kernel
PLANS = ["reduce-scatter{tensor=c_ptr dim=0 blocks=2}"]
COLLECTIVES = {"c_ptr": "out"}


def make_inputs(rank, world, seed):
    """Rank's A (M x K_LOCAL) and its weight slice (N x K_LOCAL)."""
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    a = torch.randn(M_DIM, K_LOCAL, generator=g).to(torch.float16)
    w = torch.randn(N_DIM, K_LOCAL, generator=g).to(torch.float16)
    return {"a": a, "w": w}


def launch(kernel, a, w):
    """The rank's partial A @ W^T (M x N, fp32)."""
    ensure_triton_allocator()
    M, K = a.shape
    b = w.t()
    c = torch.empty(M, b.shape[1], dtype=torch.float32, device=a.device)
    kernel[(PROGRAMS,)](a, b, c, M, b.shape[1], K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                        PROGRAMS=PROGRAMS, GROUP_M=GROUP_M, FLATTEN=False, B_NK=True)
    return c
