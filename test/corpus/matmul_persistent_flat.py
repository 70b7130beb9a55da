"""Persistent matmul as one flat loop over (tile, k-step) pairs, in the style
of the older persistent-matmul tutorial and of the Syncopate paper's GEMM for
reduce-scatter: each program counts its tiles (`tiles_per_SM`, one more for
the first `num_tiles % NUM_SMS` programs), `ki` wraps with
`tl.where(ki == k_tiles - 1, 0, ki + 1)`, the tile's coordinates and clamped
A/B offsets are set under `if ki == 0:` (and carried to the tile's other
k-steps), and the tile is stored under `if ki == k_tiles - 1:`, where the
accumulator is reset. Fused as GEMM-RS: each rank multiplies its slice of K
and C's rows are reduce-scattered; the store runs once per tile, so its
signal goes right after it."""

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_flat_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                       stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                       BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                       NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n

    tiles_per_SM = num_tiles // NUM_SMS
    if start_pid < num_tiles % NUM_SMS:
        tiles_per_SM += 1

    tile_id = start_pid - NUM_SMS
    ki = -1

    offs_k_for_mask = tl.arange(0, BLOCK_SIZE_K)

    pid_m = 0
    pid_n = 0
    offs_am = tl.arange(0, BLOCK_SIZE_M)
    offs_bn = tl.arange(0, BLOCK_SIZE_N)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)

    for _ in range(0, k_tiles * tiles_per_SM):
        ki = tl.where(ki == k_tiles - 1, 0, ki + 1)
        if ki == 0:
            tile_id += NUM_SMS
            pid_m = tile_id // num_pid_n
            pid_n = tile_id % num_pid_n

            start_m = pid_m * BLOCK_SIZE_M
            start_n = pid_n * BLOCK_SIZE_N
            offs_am = start_m + tl.arange(0, BLOCK_SIZE_M)
            offs_bn = start_n + tl.arange(0, BLOCK_SIZE_N)
            offs_am = tl.where(offs_am < M, offs_am, 0)
            offs_bn = tl.where(offs_bn < N, offs_bn, 0)
            offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_SIZE_M), BLOCK_SIZE_M)
            offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_SIZE_N), BLOCK_SIZE_N)
        offs_k = ki * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

        a = tl.load(a_ptrs, mask=offs_k_for_mask[None, :] < K - ki * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k_for_mask[:, None] < K - ki * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)

        if ki == k_tiles - 1:
            offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
            c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
            tl.store(c_ptrs, accumulator, mask=c_mask)
            accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)


NUM_SMS = 4  # 9 tiles over 4 programs: the first program runs one more (3, 2, 2, 2)
BLOCKS = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16, "NUM_SMS": NUM_SMS}


def _launch(kernel, a, b, c):
    M, K = a.shape
    N = b.shape[1]
    kernel[(NUM_SMS,)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                       c.stride(0), c.stride(1), **BLOCKS)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    M, N, K = 40, 40, 40  # 3 x 3 tiles, the last row and column partial; 3 k-steps, the last partial
    a = torch.randn(M, K, generator=g)
    b = torch.randn(K, N, generator=g)
    c = torch.empty(M, N)
    return {
        "kernel": "matmul_flat_kernel",
        "grid": (NUM_SMS,),
        "args": [a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)],
        "kwargs": BLOCKS,
        "outputs": [2],
        "atol": 1e-4,
        "rtol": 1e-4,
    }


def reference(case: dict) -> list:
    a, b = case["args"][:2]
    return [a @ b]


# --- workload: each rank's partial C (its slice of K), reduce-scattered by rows

KERNEL = matmul_flat_kernel
PLANS = ["reduce-scatter{tensor=c_ptr dim=0 size=M}"]
COLLECTIVES = {"c_ptr": "out"}
M_ROWS, K_SLICE, N_COLS = 40, 40, 40


def make_inputs(rank, world, seed):
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"a": torch.randn(M_ROWS, K_SLICE, generator=g), "b": torch.randn(K_SLICE, N_COLS, generator=g)}


def launch(kernel, a, b):
    c = torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=a.dtype)
    _launch(kernel, a, b, c)
    return c
