"""Row-wise symmetric int8 quantization (max-abs scaling). Each program owns
BLOCK_M rows; the max-abs is reduced with keep_dims so it broadcasts against
the [BLOCK_M, BLOCK_N] tiles. A runtime if/else picks the number of valid rows
(full tile vs. the ragged last tile)."""

import torch
import triton
import triton.language as tl


@triton.jit
def quantize_rowwise_kernel(x_ptr, q_ptr, scale_ptr, n_rows, n_cols, stride_xm, stride_qm,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                            NUM_STAGES: tl.constexpr):
    pid = tl.program_id(0)
    row_start = pid * BLOCK_M
    if row_start + BLOCK_M <= n_rows:
        n_valid = BLOCK_M
    else:
        n_valid = n_rows - row_start
    local = tl.arange(0, BLOCK_M)
    rows = row_start + local
    row_mask = local < n_valid

    amax = tl.zeros([BLOCK_M, 1], dtype=tl.float32)
    for start in tl.range(0, n_cols, BLOCK_N, num_stages=NUM_STAGES):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
        amax = tl.maximum(amax, tl.max(tl.abs(x), axis=1, keep_dims=True))

    scale = tl.where(amax > 0, amax / 127.0, 1.0)
    tl.store(scale_ptr + rows[:, None], scale, mask=row_mask[:, None])
    inv_scale = 1.0 / scale
    for start in tl.range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
        q = tl.floor(x * inv_scale + 0.5)
        q = tl.clamp(q, -127.0, 127.0)
        tl.store(q_ptr + rows[:, None] * stride_qm + cols[None, :], q.to(tl.int8), mask=mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    n_rows, n_cols = 27, 150
    x = torch.randn(n_rows, n_cols, generator=g) * torch.rand(n_rows, 1, generator=g) * 4.0
    q = torch.empty(n_rows, n_cols, dtype=torch.int8)
    scale = torch.empty(n_rows, 1, dtype=torch.float32)
    return {
        "kernel": "quantize_rowwise_kernel",
        "grid": (triton.cdiv(n_rows, 8),),
        "args": [x, q, scale, n_rows, n_cols, x.stride(0), q.stride(0)],
        "kwargs": {"BLOCK_M": 8, "BLOCK_N": 64, "NUM_STAGES": 2},
        "outputs": [1, 2],
        "atol": 1e-6,
        "rtol": 1e-6,
    }


def reference(case: dict) -> list:
    x = case["args"][0]
    amax = x.abs().amax(dim=1, keepdim=True)
    scale = torch.where(amax > 0, amax / 127.0, torch.ones_like(amax))
    inv = 1.0 / scale
    q = torch.clamp(torch.floor(x * inv + 0.5), -127.0, 127.0).to(torch.int8)
    return [q, scale]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather the rows of x into the persistent row-block loop
FUSE = ("all-gather{tensor=x_ptr dim=0 size=n_rows}", 0, 0)
