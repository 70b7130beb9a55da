"""Split-K GEMM + reduce-scatter: programs of axis 1 each add a slice of K's
partial product into C with atomic adds, so ``launch`` zeroes C itself. The
simulator must keep that zeroed C (the kernel reads it back), not poison it."""

import torch
import triton
import triton.language as tl


@triton.jit
def splitk_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_k = tl.program_id(axis=1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    ks = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak,
                mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
    b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn,
                mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
    tl.atomic_add(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, tl.dot(a, b),
                  mask=(rows[:, None] < M) & (cols[None, :] < N))


M_DIM, K_LOCAL, N_DIM = 24, 32, 16
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16

KERNEL = splitk_kernel
PLANS = ["reduce-scatter{tensor=c_ptr dim=0}"]
COLLECTIVES = {"c_ptr": "out"}


def make_inputs(rank, world, seed):
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"a": torch.randn(M_DIM, K_LOCAL, generator=g), "b": torch.randn(K_LOCAL, N_DIM, generator=g)}


def launch(kernel, a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.zeros(M, N, dtype=torch.float32)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(K, BLOCK_K))
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c
