"""GEMM + reduce-scatter whose output is a tensor descriptor made on the
host: each rank computes its partial C = A @ B over its slice of K and
writes it with ``c_desc.store``; rank r keeps rows ``shard_bounds(M, W, r)``
of the sum. The plan is on the descriptor: its tiles announce the rows
``[off_m, off_m + c_desc.block_shape[0])`` they stored."""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

M_DIM, N_DIM, K_LOCAL = 40, 32, 32
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16


@triton.jit
def partial_gemm_kernel(a_ptr, b_ptr, c_desc, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc)


KERNEL = partial_gemm_kernel
PLANS = ["reduce-scatter{tensor=c_desc dim=0}"]
COLLECTIVES = {"c_desc": "out"}


def make_inputs(rank, world, seed):
    """Rank's A (M x K_LOCAL) and B (K_LOCAL x N): its slice of the K dim."""
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    a = torch.randn(M_DIM, K_LOCAL, generator=g).to(torch.float16)
    b = torch.randn(K_LOCAL, N_DIM, generator=g).to(torch.float16)
    return {"a": a, "b": b}


def launch(kernel, a, b):
    """The rank's partial C (M x N, fp32), written through a host descriptor."""
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, dtype=torch.float32, device=a.device)
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    kernel[grid](a, b, c_desc, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c
