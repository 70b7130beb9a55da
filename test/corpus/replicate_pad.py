"""Replicate padding of a sequence of rows (`F.pad(x, (0, 0, PAD, PAD),
mode="replicate")`): each output row reads input row `clamp(i - PAD, 0,
M - 1)`, so the first and last input rows repeat. The clamp is
`tl.minimum(tl.maximum(...))` on the row offsets (`tl.clamp` takes floats
only on GPU Triton); no mask on the load."""

import torch
import triton
import triton.language as tl


@triton.jit
def replicate_pad_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_ym, PAD: tl.constexpr,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    out_rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    src_rows = tl.minimum(tl.maximum(pid * BLOCK_M - PAD + tl.arange(0, BLOCK_M), 0), M - 1)
    cols = tl.arange(0, BLOCK_N)
    col_mask = cols[None, :] < N
    x = tl.load(x_ptr + src_rows[:, None] * stride_xm + cols[None, :], mask=col_mask, other=0.0)
    out_mask = (out_rows[:, None] < M + 2 * PAD) & col_mask
    tl.store(y_ptr + out_rows[:, None] * stride_ym + cols[None, :], x, mask=out_mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    M, N, PAD, BM = 12, 20, 3, 4
    x = torch.randn(M, N, generator=g)
    y = torch.empty(M + 2 * PAD, N)
    return {
        "kernel": "replicate_pad_kernel",
        "grid": (triton.cdiv(M + 2 * PAD, BM),),
        "args": [x, y, M, N, x.stride(0), y.stride(0)],
        "kwargs": {"PAD": PAD, "BLOCK_M": BM, "BLOCK_N": 32},
        "outputs": [1],
        "atol": 0.0,
        "rtol": 0.0,
    }


def reference(case: dict) -> list:
    x = case["args"][0]
    pad = case["kwargs"]["PAD"]
    return [torch.nn.functional.pad(x[None], (0, 0, pad, pad), mode="replicate")[0]]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather x's rows; the first and
# last tiles wait for the chunks holding rows 0 and M - 1 only
FUSE = ("all-gather{tensor=x_ptr dim=0 size=M}", 0, 0)
