"""All-gather into a row-wise kernel that builds its typed scalars with
``tl.full((), value, dtype)`` (Unsloth's idiom): a 0-d value, the load's
``other`` and a scale."""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.jit
def scale_rows(X, Y, stride, N_COLS, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    cols = tl.arange(0, BLOCK)
    zero = tl.full((), 0.0, tl.float32)
    two = tl.full((), 2.0, dtype=tl.float32)
    x = tl.load(X + cols, mask=cols < N_COLS, other=zero)
    tl.store(Y + cols, x * two + zero, mask=cols < N_COLS)


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
