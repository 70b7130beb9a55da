"""A workload whose kernel imports its tile swizzle from the package
(absolute import): all-gather of x's rows (the package's folder must be on
sys.path, as an installed package's is)."""

import torch
import triton
import triton.language as tl

from helperpkg.tiles import host_grid, tile_coords
from syncopate.runtime.workload import shard_bounds


@triton.jit
def gather_tiles(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    pid_m, pid_n = tile_coords(pid, M, N, BLOCK_M, BLOCK_N)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    # `cols >= 0`: the swizzle's pid_n is `... // min(num_m - first_m, GROUP_M)`,
    # negative for a program past the tile grid, which would read the row before
    mask = (rows[:, None] < M) & (cols[None, :] >= 0) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x * 2.0, mask=mask)


M_DIM, N_DIM = 40, 16
BLOCK_M, BLOCK_N = 8, 8

KERNEL = gather_tiles
PLANS = ["all-gather{tensor=x_ptr dim=0}"]
COLLECTIVES = {"x_ptr": "x"}


def make_inputs(rank, world, seed):
    _, size = shard_bounds(M_DIM, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(size, N_DIM, generator=g)}


def launch(kernel, x):
    M, N = x.shape
    y = torch.empty(M, N, dtype=torch.float32, device=x.device)
    kernel[host_grid(M, N, BLOCK_M, BLOCK_N)](x, y, M, N, x.stride(0), y.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y
