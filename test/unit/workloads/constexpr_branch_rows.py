"""All-gather into a row-wise kernel with an optional weight, as Liger's
rms_norm writes it: ``w`` is bound only under ``if HAS_WEIGHT:`` and used
only under the same constexpr condition later."""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.jit
def weighted_rows(X, W, Y, stride, N_COLS, HAS_WEIGHT: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < N_COLS, other=0.0)
    if HAS_WEIGHT:
        w = tl.load(W + cols, mask=cols < N_COLS, other=0.0)
    y = x * 2.0
    if HAS_WEIGHT:
        y = y * w
    tl.store(Y + row * stride + cols, y, mask=cols < N_COLS)


ROWS, COLS, BLOCK = 7, 20, 32
HAS_WEIGHT = True  # the test runs it both ways

KERNEL = weighted_rows
PLANS = ["all-gather{tensor=X dim=0}"]
COLLECTIVES = {"X": "x"}


def make_inputs(rank, world, seed):
    _, size = shard_bounds(ROWS, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(size, COLS, generator=g)}


def launch(kernel, x):
    y = torch.empty_like(x)
    w = torch.linspace(0.5, 1.5, COLS)
    kernel[(x.shape[0],)](x, w, y, x.stride(0), COLS, HAS_WEIGHT=HAS_WEIGHT, BLOCK=BLOCK)
    return y
