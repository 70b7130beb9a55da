"""All-gather into a row-wise kernel that reads the second half of each row
(``X + row * stride + HALF + cols`` with ``cols < HALF``, the gate/up split of
SwiGLU-style kernels). No mask bounds ``HALF + cols`` by the row's length, so
verify-addresses proves the access covered only for launches whose rows are
at least ``2 * HALF`` long, and records that for the runtime to check."""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.jit
def second_half(X, Y, stride_x, stride_y, HALF: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride_x + HALF + cols, mask=cols < HALF, other=0.0)
    tl.store(Y + row * stride_y + cols, x * 2.0, mask=cols < HALF)


ROWS, HALF, BLOCK = 7, 12, 16

KERNEL = second_half
PLANS = ["all-gather{tensor=X dim=0 size=M stride=stride_x}"]
COLLECTIVES = {"X": "x"}


def make_inputs(rank, world, seed):
    _, size = shard_bounds(ROWS, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(size, 2 * HALF, generator=g)}


def launch(kernel, x):
    y = torch.empty(x.shape[0], HALF)
    kernel[(x.shape[0],)](x, y, x.stride(0), y.stride(0), HALF=HALF, BLOCK=BLOCK)
    return y
