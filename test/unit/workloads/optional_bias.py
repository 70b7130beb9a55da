"""All-gather into a kernel whose bias parameter may be None: the gathered
rows are read in both arms of `if bias_ptr is not None` (each arm waits for
them), and `bias_ptr is None` scales the result. `WITH_BIAS` picks the launch."""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.jit
def bias_kernel(x_ptr, bias_ptr, out_ptr, M, N, stride_xm, stride_om, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(axis=0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    if bias_ptr is not None:
        bias = tl.load(bias_ptr + cols, mask=cols < N, other=0.0)
        y = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0) + bias[None, :]
    else:
        y = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    NO_BIAS = bias_ptr is None
    if NO_BIAS:
        y = y * 2.0
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], y, mask=mask)


M_DIM, N_DIM = 40, 8
BLOCK_M, BLOCK_N = 8, 8
WITH_BIAS = True

KERNEL = bias_kernel
PLANS = ["all-gather{tensor=x_ptr dim=0}"]
COLLECTIVES = {"x_ptr": "x"}


def make_inputs(rank, world, seed):
    _, size = shard_bounds(M_DIM, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    gb = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"x": torch.randn(size, N_DIM, generator=g), "bias": torch.randn(N_DIM, generator=gb)}


def launch(kernel, x, bias):
    M, N = x.shape
    out = torch.empty(M, N, dtype=torch.float32, device=x.device)
    kernel[(triton.cdiv(M, BLOCK_M),)](x, bias if WITH_BIAS else None, out, M, N, x.stride(0), out.stride(0),
                                       BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
