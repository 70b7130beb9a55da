"""All-gather into kernels whose row index subtracts: `offs - PAD` (rows
shifted down by a runtime scalar, the rows below 0 masked) and
`M - 1 - offs` (a reversed range: the rows of the tile in reverse order).
`KERNEL` picks one (test/unit/analysis/test_subtracted_index.py runs both)."""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.jit
def shift_down(x_ptr, y_ptr, M, N, PAD, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rows = offs - PAD
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] >= 0) & (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + offs[:, None] * stride_ym + cols[None, :], x, mask=(offs[:, None] < M) & (cols[None, :] < N))


@triton.jit
def reverse_rows(x_ptr, y_ptr, M, N, PAD, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rows = M - 1 - offs
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] >= 0) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + offs[:, None] * stride_ym + cols[None, :], x + PAD, mask=(offs[:, None] < M) & (cols[None, :] < N))


M_DIM, N_DIM, PAD = 34, 8, 12
BLOCK_M, BLOCK_N = 8, 8

KERNEL = shift_down
PLANS = ["all-gather{tensor=x_ptr dim=0}"]
COLLECTIVES = {"x_ptr": "x"}


def make_inputs(rank, world, seed):
    _, size = shard_bounds(M_DIM, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(size, N_DIM, generator=g)}


def launch(kernel, x):
    M, N = x.shape
    y = torch.empty(M, N, dtype=torch.float32, device=x.device)
    kernel[(triton.cdiv(M, BLOCK_M),)](x, y, M, N, PAD, x.stride(0), y.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y
