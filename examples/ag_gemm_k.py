"""All-gather along K + GEMM: A's columns (the K dim) are sharded over ranks
and all-gathered before C = A @ B.

Plan: ``all-gather{tensor=a_ptr dim=1 size=K}``; rank r holds columns
``shard_bounds(K, W, r)`` of A. K is not a multiple of BLOCK_K, so k-blocks
straddle two shards.
"""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.jit
def gemm_k_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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


# --- workload convention (see syncopate/runtime/workload.py) -----------------

M_DIM, K_GLOBAL, N_DIM = 40, 44, 36
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16

KERNEL = gemm_k_kernel
PLANS = ["all-gather{tensor=a_ptr dim=1 size=K}"]
COLLECTIVES = {"a_ptr": "a"}


def make_inputs(rank, world, seed):
    """Rank's columns of A (M x K_shard) and the full B (same on every rank)."""
    start, size = shard_bounds(K_GLOBAL, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    a = torch.randn(M_DIM, size, generator=g, dtype=torch.float32)
    gb = torch.Generator().manual_seed(seed * 1000 + 999)
    b = torch.randn(K_GLOBAL, N_DIM, generator=gb, dtype=torch.float32)
    return {"a": a, "b": b}


def launch(kernel, a, b):
    """C = A @ B with A the full (gathered) M x K matrix."""
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c
