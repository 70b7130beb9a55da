"""All-gather + persistent GEMM whose operands all come as tensor
descriptors made on the host, as the persistent-matmul tutorial's
TMA variant passes them: A (M x K, rows gathered), B stored N x K as
nn.Linear keeps its weight, C (M x N). The block shape lives in the
descriptors; the kernel reads A's from ``a_desc.block_shape``, so the
fused kernel's waits span ``a_desc.block_shape[0]`` rows."""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from syncopate.runtime.workload import shard_bounds

M_GLOBAL, K_DIM, N_DIM = 40, 32, 32
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16
GROUP_M = 2
PROGRAMS = 3  # fewer programs than the 6 tiles: each walks two


@triton.jit
def _tile_coords(tile, tiles_n, tiles_m, GROUP: tl.constexpr):
    per_group = GROUP * tiles_n
    group = tile // per_group
    first_m = group * GROUP
    rows_in_group = min(tiles_m - first_m, GROUP)
    pid_m = first_m + (tile % per_group) % rows_in_group
    pid_n = (tile % per_group) // rows_in_group
    return pid_m, pid_n


@triton.jit
def linear_host_tma_kernel(a_desc, w_desc, c_desc, M, N, K,
                           BLOCK_N: tl.constexpr, GROUP: tl.constexpr, PROGRAMS: tl.constexpr):
    BM: tl.constexpr = a_desc.block_shape[0]
    BK: tl.constexpr = a_desc.block_shape[1]
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BLOCK_N)
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, PROGRAMS):
        pid_m, pid_n = _tile_coords(tile, tiles_n, tiles_m, GROUP)
        off_m = pid_m * BM
        off_n = pid_n * BLOCK_N
        acc = tl.zeros((BM, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = a_desc.load([off_m, k * BK])
            w = w_desc.load([off_n, k * BK])
            acc = tl.dot(a, w.T, acc)
        c_desc.store([off_m, off_n], acc.to(tl.float16))


KERNEL = linear_host_tma_kernel
PLANS = ["all-gather{tensor=a_desc dim=0}"]
COLLECTIVES = {"a_desc": "a"}


def make_inputs(rank, world, seed):
    """Rank's shard of A's rows (of M_GLOBAL) and the full weight (N x K, the same on every rank)."""
    _, rows = shard_bounds(M_GLOBAL, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    a = torch.randn(rows, K_DIM, generator=g).to(torch.float16)
    gw = torch.Generator().manual_seed(seed * 1000 + 999)
    w = torch.randn(N_DIM, K_DIM, generator=gw).to(torch.float16)
    return {"a": a, "w": w}


def launch(kernel, a, w):
    """C = A @ W^T with A the full (gathered) M x K matrix."""
    M, K = a.shape
    N = w.shape[0]
    c = torch.empty(M, N, dtype=torch.float16, device=a.device)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    w_desc = TensorDescriptor.from_tensor(w, [BLOCK_N, BLOCK_K])
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
    kernel[(PROGRAMS,)](a_desc, w_desc, c_desc, M, N, K, BLOCK_N=BLOCK_N, GROUP=GROUP_M, PROGRAMS=PROGRAMS)
    return c
