"""int8 x int8 GEMM with per-row and per-column fp32 scales (a W8A8 linear
layer in the style of vLLM / FlagGems): int32 accumulation through
loop-carried pointer blocks, the scales applied in the epilogue."""

import torch
import triton
import triton.language as tl


@triton.jit
def scaled_mm_kernel(a_ptr, b_ptr, scale_a_ptr, scale_b_ptr, c_ptr, M, N, K,
                     stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    scale_a = tl.load(scale_a_ptr + offs_m, mask=offs_m < M, other=0.0)
    scale_b = tl.load(scale_b_ptr + offs_n, mask=offs_n < N, other=0.0)
    c = acc.to(tl.float32) * scale_a[:, None] * scale_b[None, :]
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    M, N, K = 40, 24, 80
    a = torch.randint(-8, 8, (M, K), generator=g, dtype=torch.int8)
    b = torch.randint(-8, 8, (K, N), generator=g, dtype=torch.int8)
    sa = torch.rand(M, generator=g) + 0.5
    sb = torch.rand(N, generator=g) + 0.5
    c = torch.empty(M, N)
    return {
        "kernel": "scaled_mm_kernel",
        "grid": (triton.cdiv(M, 16), triton.cdiv(N, 16)),
        "args": [a, b, sa, sb, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)],
        "kwargs": {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 32},  # int8 dot needs K >= 32 on sm_90
        "outputs": [4],
        "atol": 1e-3,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    a, b, sa, sb = case["args"][:4]
    # float64 holds the int8 products and their sums exactly (CUDA has no integer matmul)
    return [(a.double() @ b.double()).float() * sa[:, None] * sb[None, :]]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather the per-token scales
# (1-D, read in the epilogue). Gathering the int8 activations themselves
# compiles too, but the simulated world poisons undelivered rows with NaN and
# so only gathers floating-point tensors.
FUSE = ("all-gather{tensor=scale_a_ptr dim=0 size=M}", 2, 0)
