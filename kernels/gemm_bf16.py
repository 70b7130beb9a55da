"""C = A @ B, one (BLOCK_M x BLOCK_N) tile per program, fp32 accumulator.

The benchmark's GEMM: the "local Triton" baseline and the kernel syncopate
fuses with an all-gather of A's rows (``all-gather{tensor=a_ptr dim=0}``) or
a reduce-scatter of C's rows (``reduce-scatter{tensor=c_ptr dim=0}``). The
output dtype is C's (bf16 on GPUs, fp32 in ``overlap-bench --cpu``).

Kept in the frontend's subset: program ids on axes 0 (rows) and 1 (columns),
explicit pointer arithmetic with strides, masks, ``tl.dot``; tile order and
L2 swizzling are left to syncopate's tile-reorder pass.
"""

import triton
import triton.language as tl


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
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

