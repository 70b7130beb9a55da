"""MoE combine: ``out[t] = sum_k gate[t, k] * y[idx[t, k]]``, one (token x
BLOCK_N columns) tile per program, fp32 accumulator; the output dtype is
out's.

The combine of an expert-parallel MoE layer (``examples/moe_combine.py``,
bench workload ``moe-layer``): ``y`` holds the expert outputs the combine
all-to-all brought back, in the dispatch send buffer's order, and ``idx``
row ``t`` the rows of token t's top-k choices in it. syncopate fuses the
all-to-all into it (``all-to-all{tensor=y_ptr dim=0 splits=...}``): each
scalar row read from ``idx`` waits for the chunk holding that row.
"""

import triton
import triton.language as tl


@triton.jit
def moe_combine_kernel(y_ptr, idx_ptr, gate_ptr, out_ptr, N, stride_ym, stride_yn, stride_om, stride_on,
                       TOPK: tl.constexpr, BLOCK_N: tl.constexpr):
    token = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k in range(TOPK):
        row = tl.load(idx_ptr + token * TOPK + k)
        weight = tl.load(gate_ptr + token * TOPK + k)
        y = tl.load(y_ptr + row * stride_ym + offs_n * stride_yn, mask=offs_n < N, other=0.0)
        acc += weight * y.to(tl.float32)
    tl.store(out_ptr + token * stride_om + offs_n * stride_on, acc.to(out_ptr.dtype.element_ty), mask=offs_n < N)
