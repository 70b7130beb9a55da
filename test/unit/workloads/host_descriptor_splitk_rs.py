"""Split-K GEMM + reduce-scatter whose output is a tensor descriptor made on
the host, as Hopper split-K GEMMs take it: SPLIT_K programs per output tile
each add their K slice's partial tile with `c_desc.atomic_add` (a TMA
reduction) into a zeroed C. The plan is on the descriptor: each program
announces the rows `[off_m, off_m + c_desc.block_shape[0])` after its add, so
a chunk is complete once every K slice of every tile over it has added."""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

M_DIM, N_DIM, K_LOCAL = 40, 32, 48  # the last row tile is partial: the descriptor clips it
BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K = 16, 16, 16, 2


@triton.jit
def splitk_desc_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K):
        acc = tl.dot(a_desc.load([pid_m * BLOCK_M, k]), b_desc.load([k, pid_n * BLOCK_N]), acc)
    c_desc.atomic_add([pid_m * BLOCK_M, pid_n * BLOCK_N], acc)


KERNEL = splitk_desc_kernel
PLANS = ["reduce-scatter{tensor=c_desc dim=0}"]
COLLECTIVES = {"c_desc": "out"}


def make_inputs(rank, world, seed):
    """Rank's A (M x K_LOCAL) and B (K_LOCAL x N): its slice of the K dim."""
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"a": torch.randn(M_DIM, K_LOCAL, generator=g), "b": torch.randn(K_LOCAL, N_DIM, generator=g)}


def launch(kernel, a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.zeros(M, N, dtype=torch.float32, device=a.device)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_K, BLOCK_N])
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), SPLIT_K)
    kernel[grid](a_desc, b_desc, c_desc, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                 SPLIT_K=SPLIT_K)
    return c
