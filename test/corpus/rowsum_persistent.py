"""Row sums in the persistent style of the older persistent-matmul tutorial:
one flat loop over (tile, k-step) pairs per program, `ki` wrapped with
`tl.where`, and the tile's row offsets set under `if ki == 0` (so they are
carried from one iteration to the next); the result is stored under
`if ki == k_tiles - 1` and the accumulator reset."""

import torch
import triton
import triton.language as tl


@triton.jit
def rowsum_persistent_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_xn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_tiles = tl.cdiv(M, BLOCK_M)
    k_tiles = tl.cdiv(N, BLOCK_N)
    tiles_per_sm = num_tiles // NUM_SMS
    if start_pid < num_tiles % NUM_SMS:
        tiles_per_sm += 1

    tile_id = start_pid - NUM_SMS
    ki = -1
    offs_m = tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for _ in range(0, k_tiles * tiles_per_sm):
        ki = tl.where(ki == k_tiles - 1, 0, ki + 1)
        if ki == 0:
            tile_id += NUM_SMS
            offs_m = tile_id * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = ki * BLOCK_N + tl.arange(0, BLOCK_N)
        mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask, other=0.0)
        acc += tl.sum(x, axis=1)
        if ki == k_tiles - 1:
            tl.store(y_ptr + offs_m, acc, mask=offs_m < M)
            acc = tl.zeros((BLOCK_M,), dtype=tl.float32)


NUM_SMS = 3


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    M, N = 44, 40  # 6 row tiles over 3 programs, 3 k-steps each (the last partial)
    x = torch.randn(M, N, generator=g)
    y = torch.empty(M)
    return {
        "kernel": "rowsum_persistent_kernel",
        "grid": (NUM_SMS,),
        "args": [x, y, M, N, x.stride(0), x.stride(1)],
        "kwargs": {"BLOCK_M": 8, "BLOCK_N": 16, "NUM_SMS": NUM_SMS},
        "outputs": [1],
        "atol": 1e-4,
        "rtol": 1e-4,
    }


def reference(case: dict) -> list:
    return [case["args"][0].sum(dim=1)]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather X's rows into the row sums
FUSE = ("all-gather{tensor=x_ptr dim=0}", 0, 0)
