"""All-gather into a row-wise kernel whose row offset is combined with the
columns before it is added (``offsets = row_idx * X_row_stride + cols`` with
``X_row_stride: tl.constexpr``, Unsloth's style), the row widened to int64
in one arm of a constexpr ``if`` (LONG_INDEXING). The plan names the stride
(``stride=X_row_stride``)."""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.jit
def scale_rows(X, X_row_stride: tl.constexpr, Y, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr,
               LONG_INDEXING: tl.constexpr):
    row_idx = tl.program_id(0)
    if LONG_INDEXING:
        row_idx = row_idx.to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    offsets = row_idx * X_row_stride + col_offsets
    x = tl.load(X + offsets, mask=mask, other=0.0)
    tl.store(Y + offsets, x * 3.0 + row_idx, mask=mask)


ROWS, COLS, BLOCK = 9, 20, 32
LONG = False

KERNEL = scale_rows
PLANS = ["all-gather{tensor=X dim=0 stride=X_row_stride}"]
COLLECTIVES = {"X": "x"}


def make_inputs(rank, world, seed):
    _, size = shard_bounds(ROWS, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(size, COLS, generator=g)}


def launch(kernel, x):
    y = torch.empty_like(x)
    kernel[(x.shape[0],)](x, x.stride(0), y, n_cols=COLS, BLOCK_SIZE=BLOCK, LONG_INDEXING=LONG)
    return y
