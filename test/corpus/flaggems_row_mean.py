"""Row mean over the last dim in FlagGems' reduction style: BLOCK_M rows per
program built as `pid * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]` (the row
block expanded before the add), columns walked in BLOCK_N blocks with a 2-D
fp32 accumulator, `M`/`N` arguments and a 2-D mask."""

import torch
import triton
import triton.language as tl


@triton.jit
def mean_dim_kernel(X, Mean, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    X = X + rows * N
    Mean = Mean + rows
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)[None, :]
        col_mask = cols < N
        a = tl.load(X + cols, mask=row_mask & col_mask, other=0.0).to(tl.float32)
        acc += a
    mean = tl.sum(acc, axis=1)[:, None] / N
    tl.store(Mean, mean, row_mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    m, n = 37, 70
    x = torch.randn(m, n, generator=g)
    mean = torch.empty(m, 1)
    return {
        "kernel": "mean_dim_kernel",
        "grid": (triton.cdiv(m, 8),),
        "args": [x, mean, m, n],
        "kwargs": {"BLOCK_M": 8, "BLOCK_N": 32},
        "outputs": [1],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    return [case["args"][0].mean(dim=1, keepdim=True)]


FUSE = ("all-gather{tensor=X dim=0 size=M}", 0, 0)
