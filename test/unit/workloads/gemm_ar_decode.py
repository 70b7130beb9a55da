"""A decode-shaped GEMM + all-reduce (a row-parallel linear at one token):
one row of activations times a rank's slice of the weight, summed over
ranks, with a masked store; gemm_ar.py's kernel at M = 1. Fused with
``overlap{reduce=push}`` the kernel sums the partials itself. M is
WORKLOAD_M (default 1) so a test can run other decode row counts.
"""

import os

import torch
import triton
import triton.language as tl


@triton.jit
def gemm_ar_decode_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                          stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


M_DIM, K_LOCAL, N_DIM = int(os.environ.get("WORKLOAD_M", "1")), 24, 40
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16

KERNEL = gemm_ar_decode_kernel
PLANS = ["all-reduce{tensor=c_ptr dim=0}"]
COLLECTIVES = {"c_ptr": "out"}


def make_inputs(rank, world, seed):
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    a = torch.randn(M_DIM, K_LOCAL, generator=g, dtype=torch.float32)
    b = torch.randn(K_LOCAL, N_DIM, generator=g, dtype=torch.float32)
    return {"a": a, "b": b}


def launch(kernel, a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c
