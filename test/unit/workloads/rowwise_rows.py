"""All-gather into a row-wise kernel with no row-count parameter: one row per
program, launched on `grid = (x.shape[0],)`. The plan gives no size=: its
extent is read from the gathered tensor at each launch. The row count
changes with the seed (ROWS + seed), so one compiled program runs at
several sizes, even and uneven splits."""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.jit
def rms_rows(X, Y, stride, N_COLS, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < N_COLS, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N_COLS + eps)
    tl.store(Y + cols, x * rstd, mask=cols < N_COLS)


ROWS, COLS, BLOCK = 6, 20, 32

KERNEL = rms_rows
PLANS = ["all-gather{tensor=X dim=0}"]
COLLECTIVES = {"X": "x"}


def make_inputs(rank, world, seed):
    _, size = shard_bounds(ROWS + seed, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(size, COLS, generator=g)}


def launch(kernel, x):
    y = torch.empty_like(x)
    kernel[(x.shape[0],)](x, y, x.stride(0), COLS, 1e-6, BLOCK=BLOCK)
    return y
