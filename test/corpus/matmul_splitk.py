"""Split-K matmul: program_id(1) picks a slice of the K dimension; partial
products are accumulated into a float32 output with atomic adds. The output is
read-modify-write (the caller normally zeroes it; here it holds random data and
the reference adds to it)."""

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_splitk_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    SPLIT_K: tl.constexpr,
):
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    grid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // grid_n
    pid_n = pid % grid_n

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        k_remaining = K - k * (BLOCK_K * SPLIT_K)
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_remaining), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_remaining) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * SPLIT_K * stride_ak
        b_ptrs += BLOCK_K * SPLIT_K * stride_bk

    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.atomic_add(c_ptrs, acc, mask=c_mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    M, N, K = 40, 50, 150
    BM, BN, BK, SPLIT_K = 16, 32, 16, 4
    a = torch.randn(M, K, generator=g)
    b = torch.randn(K, N, generator=g)
    c = torch.randn(M, N, generator=g)
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN), SPLIT_K)
    return {
        "kernel": "matmul_splitk_kernel",
        "grid": grid,
        "args": [a, b, c, M, N, K,
                 a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)],
        "kwargs": {"BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": BK, "SPLIT_K": SPLIT_K},
        "outputs": [2],
        # c is accumulated into: its initial contents are an input too, so the
        # test must not poison it.
        "inout": [2],
        "atol": 1e-4,
        "rtol": 1e-4,
    }


def reference(case: dict) -> list:
    a, b, c = case["args"][:3]
    return [c + a @ b]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather A's rows into every K split
FUSE = ("all-gather{tensor=a_ptr dim=0 size=M}", 0, 0)
