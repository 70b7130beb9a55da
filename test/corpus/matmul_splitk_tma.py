"""Split-K matmul through tensor descriptors, the way Hopper split-K GEMMs
reduce: program_id(0) picks an output tile, program_id(1) one of SPLIT_K
contiguous runs of K tiles, and each program adds its partial tile into C
with a TMA reduction, `c_desc.atomic_add([off_m, off_n], acc)` (several
programs add into the same tile; the caller zeroes C). The last row tile is
partial: the descriptor skips the rows past M. A slice may get no K tile at
all (it adds zeros).

Fusion: a reduce-scatter of C, whose tiles each announce their rows after
their atomic add, so a chunk counts one signal per K slice of every tile
over it. The Triton interpreter has no descriptor atomics: the simulator
gives it one (runtime/sim/descriptor_atomics.py)."""

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_splitk_tma_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             SPLIT_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    tile = tl.program_id(axis=0)
    k_slice = tl.program_id(axis=1)
    tiles_n = tl.cdiv(N, BLOCK_N)
    off_m = (tile // tiles_n) * BLOCK_M
    off_n = (tile % tiles_n) * BLOCK_N
    k_tiles = tl.cdiv(K, BLOCK_K)
    per_slice = tl.cdiv(k_tiles, SPLIT_K)
    k_first = k_slice * per_slice
    k_last = tl.minimum(k_first + per_slice, k_tiles)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kt in range(k_first, k_last):
        off_k = kt * BLOCK_K
        acc = tl.dot(a_desc.load([off_m, off_k]), b_desc.load([off_k, off_n]), acc)
    c_desc.atomic_add([off_m, off_n], acc)


BLOCKS = {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "SPLIT_K": 3}


def _alloc(size: int, alignment: int, stream):
    # Scratch for the device-side descriptors; required on GPU, harmless in the interpreter.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.empty(size, device=device, dtype=torch.int8)


def _launch(kernel, a, b, c):
    triton.set_allocator(_alloc)
    M, K = a.shape
    N = b.shape[1]
    grid = (triton.cdiv(M, BLOCKS["BLOCK_M"]) * triton.cdiv(N, BLOCKS["BLOCK_N"]), BLOCKS["SPLIT_K"])
    kernel[grid](a, b, c, M, N, K, **BLOCKS)


def make_case(seed: int) -> dict:
    triton.set_allocator(_alloc)
    g = torch.Generator().manual_seed(seed)
    M, N, K = 40, 32, 80  # 5 K tiles over 3 slices (2, 2, 1); the third row tile is partial
    a = torch.randn(M, K, generator=g)
    b = torch.randn(K, N, generator=g)
    c = torch.randn(M, N, generator=g)  # accumulated into: the reference adds to it
    grid = (triton.cdiv(M, BLOCKS["BLOCK_M"]) * triton.cdiv(N, BLOCKS["BLOCK_N"]), BLOCKS["SPLIT_K"])
    return {
        "kernel": "matmul_splitk_tma_kernel",
        "grid": grid,
        "args": [a, b, c, M, N, K],
        "kwargs": BLOCKS,
        "outputs": [2],
        "inout": [2],
        "atol": 1e-3,
        "rtol": 1e-3,
    }


def reference(case: dict) -> list:
    a, b, c = case["args"][:3]
    return [c + a @ b]


# --- workload: reduce-scatter C's rows, summed over the ranks' K shards -----
KERNEL = matmul_splitk_tma_kernel
PLANS = ["reduce-scatter{tensor=c_ptr dim=0}"]
COLLECTIVES = {"c_ptr": "out"}
M_ROWS, K_LOCAL, N_COLS = 56, 64, 32  # 4 row tiles, the last partial; 4 K tiles per rank over 3 slices


def make_inputs(rank, world, seed):
    """Rank's A (M x K_LOCAL) and B (K_LOCAL x N): its slice of the K dim."""
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"a": torch.randn(M_ROWS, K_LOCAL, generator=g), "b": torch.randn(K_LOCAL, N_COLS, generator=g)}


def launch(kernel, a, b):
    """The rank's partial C = A @ B, accumulated by SPLIT_K programs per tile into zeros."""
    c = torch.zeros(a.shape[0], b.shape[1], device=a.device, dtype=torch.float32)
    _launch(kernel, a, b, c)
    return c
