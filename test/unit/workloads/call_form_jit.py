"""All-gather into a row-wise kernel made with the call form
``scale_rows = triton.jit(_scale_rows)`` (Unsloth's idiom) instead of the
decorator; the launch uses the name it binds."""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


def _scale_rows(X, Y, stride, N_COLS, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < N_COLS, other=0.0)
    tl.store(Y + row * stride + cols, x * 3.0, mask=cols < N_COLS)


scale_rows = triton.jit(_scale_rows)

ROWS, COLS, BLOCK = 7, 20, 32

KERNEL = scale_rows
PLANS = ["all-gather{tensor=X dim=0}"]
COLLECTIVES = {"X": "x"}


def make_inputs(rank, world, seed):
    _, size = shard_bounds(ROWS, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(size, COLS, generator=g)}


def launch(kernel, x):
    y = torch.empty_like(x)
    kernel[(x.shape[0],)](x, y, x.stride(0), COLS, BLOCK=BLOCK)
    return y
