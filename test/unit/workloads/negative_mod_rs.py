"""Reduce-scatter from a kernel whose tile row is `((pid - SHIFT) % T) * BLOCK_M`:
the grid has SHIFT more programs than tiles, and for `pid < SHIFT` Triton's
`%` is negative (it truncates, like C), so those programs store nothing (the
rows are masked); Python's `%` would put them on the
last rows, and a host that counts them as writers of the last chunk waits
for signals no tile sends (a hang on GPUs). test/unit/analysis/test_host_semantics.py."""

import torch
import triton
import triton.language as tl


@triton.jit
def shifted_rows(x_ptr, y_ptr, M, N, T, SHIFT, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = ((pid - SHIFT) % T) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] >= 0) & (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x * 2.0, mask=mask)


M_DIM, N_DIM, SHIFT = 32, 8, 1
BLOCK_M, BLOCK_N = 8, 8

KERNEL = shifted_rows
PLANS = ["reduce-scatter{tensor=y_ptr dim=0}"]
COLLECTIVES = {"y_ptr": "out"}


def make_inputs(rank, world, seed):
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(M_DIM, N_DIM, generator=g)}


def launch(kernel, x):
    M, N = x.shape
    y = torch.zeros(M, N, dtype=torch.float32)
    tiles = triton.cdiv(M, BLOCK_M)
    kernel[(tiles + SHIFT,)](x, y, M, N, tiles, SHIFT, x.stride(0), y.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y
