"""GEMM + all-reduce (a row-parallel linear without sequence parallelism):
every rank computes a partial C = A_r @ B_r over its slice of K; the
multi-GPU program sums the partials, and every rank gets all of C. The
single-GPU program is gemm_rs.py's: only the plan differs (a workload file
is a self-contained program, as a user's is).

Plan: ``all-reduce{tensor=c_ptr dim=0}``: the partial rows go to their
owners as in a reduce-scatter (tiles announce the rows they wrote), then
the owners' summed rows go to every rank. Rank r's result is the sum over
ranks of each rank's C.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def gemm_ar_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
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

M_DIM, K_LOCAL, N_DIM = 50, 24, 36
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16

KERNEL = gemm_ar_kernel
PLANS = ["all-reduce{tensor=c_ptr dim=0}"]
COLLECTIVES = {"c_ptr": "out"}


def make_inputs(rank, world, seed):
    """Rank's A (M x K_LOCAL) and B (K_LOCAL x N): its slice of the K dim."""
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    a = torch.randn(M_DIM, K_LOCAL, generator=g, dtype=torch.float32)
    b = torch.randn(K_LOCAL, N_DIM, generator=g, dtype=torch.float32)
    return {"a": a, "b": b}


def launch(kernel, a, b):
    """The rank's partial C = A @ B (M x N)."""
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c
