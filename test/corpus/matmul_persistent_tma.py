"""Persistent fp16 matmul through device-side tensor descriptors (TMA on
Hopper), in the style of the persistent-matmul tutorial's descriptor
kernel: the descriptors are made once, a fixed number of programs walk the
output tiles in GROUP_M order, and each tile runs its K loop through
`desc.load([off_m, off_k])`. Host-side descriptors (`TensorDescriptor`
arguments) are not used: the frontend takes device-side ones only."""

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_persistent_tma_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                                 BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                                 BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1],
                                       block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        group_id = tile_id // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + (tile_id % group_size_m)
        pid_n = (tile_id % num_pid_in_group) // group_size_m
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K
            a = a_desc.load([offs_am, offs_k])
            b = b_desc.load([offs_bn, offs_k])
            accumulator = tl.dot(a, b.T, accumulator)
        c_desc.store([offs_am, offs_bn], accumulator.to(tl.float16))


NUM_SMS = 3
BLOCKS = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16, "GROUP_SIZE_M": 2, "NUM_SMS": NUM_SMS}


def _alloc(size: int, alignment: int, stream):
    # Scratch for the descriptors; required on GPU, harmless in the interpreter.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.empty(size, device=device, dtype=torch.int8)


def _launch(kernel, a, b_t, c):
    triton.set_allocator(_alloc)
    M, K = a.shape
    N = b_t.shape[0]
    kernel[(NUM_SMS,)](a, b_t, c, M, N, K, **BLOCKS)


def make_case(seed: int) -> dict:
    triton.set_allocator(_alloc)
    g = torch.Generator().manual_seed(seed)
    M, N, K = 40, 24, 32  # K and N multiples of 8 halves (16-byte row strides)
    a = torch.randn(M, K, generator=g).to(torch.float16)
    b_t = torch.randn(N, K, generator=g).to(torch.float16)  # B stored transposed, as the tutorial does
    c = torch.empty(M, N, dtype=torch.float16)
    return {
        "kernel": "matmul_persistent_tma_kernel",
        "grid": (NUM_SMS,),
        "args": [a, b_t, c, M, N, K],
        "kwargs": BLOCKS,
        "outputs": [2],
        "atol": 2e-2,
        "rtol": 1e-2,
    }


def reference(case: dict) -> list:
    a, b_t = case["args"][:2]
    return [(a.float() @ b_t.float().T).to(torch.float16)]


# --- workload: all-gather A's rows, read through a descriptor in a persistent kernel

KERNEL = matmul_persistent_tma_kernel
PLANS = ["all-gather{tensor=a_ptr dim=0 size=M}"]
COLLECTIVES = {"a_ptr": "a", "b_ptr": "b_t"}
M_ROWS, K_DIM, N_COLS = 48, 32, 24


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(M_ROWS, world, rank)
    gb = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"a": torch.randn(rows, K_DIM, generator=g).to(torch.float16),
            "b_t": torch.randn(N_COLS, K_DIM, generator=gb).to(torch.float16)}


def launch(kernel, a, b_t):
    c = torch.empty((a.shape[0], b_t.shape[0]), device=a.device, dtype=torch.float16)
    _launch(kernel, a, b_t, c)
    return c
