# The emitted kernel runs in the Triton interpreter and computes the right numbers.
# RUN: overlap-opt %s -t triton -o %t.py
# RUN: env TRITON_INTERPRET=1 %python %S/inputs/run_emitted.py %t.py | filecheck %s
# CHECK: max_err=0.0{{$}}
import triton
import triton.language as tl


@triton.jit
def scale_add(v, s):
    return v * s + 0.0


@triton.jit
def rowsum_kernel(x_ptr, out_ptr, M, K, stride_m, scale, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rm = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        rk = k + tl.arange(0, BLOCK_K)
        mask = (rm[:, None] < M) & (rk[None, :] < K)
        x = tl.load(x_ptr + rm[:, None] * stride_m + rk[None, :], mask=mask, other=0.0)
        acc += tl.sum(scale_add(x, scale), axis=1)
    if K > 0:
        acc = acc + 1.0
    tl.store(out_ptr + rm, acc, mask=rm < M)
