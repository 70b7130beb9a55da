"""All-gather into a kernel whose tiles load the same rows in both arms of
an if/else: each arm's load needs its own wait."""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.jit
def ifelse_kernel(x_ptr, out_ptr, M, N, stride_xm, stride_om, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(axis=0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    if pid % 2 == 0:
        y = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0) * 2.0
    else:
        y = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0) + 1.0
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], y, mask=mask)


M_DIM, N_DIM = 40, 8
BLOCK_M, BLOCK_N = 8, 8

KERNEL = ifelse_kernel
PLANS = ["all-gather{tensor=x_ptr dim=0}"]
COLLECTIVES = {"x_ptr": "x"}


def make_inputs(rank, world, seed):
    _, size = shard_bounds(M_DIM, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(size, N_DIM, generator=g)}


def launch(kernel, x):
    M, N = x.shape
    out = torch.empty(M, N, dtype=torch.float32, device=x.device)
    kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, x.stride(0), out.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
