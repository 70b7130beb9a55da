"""fp16 matmul through device-side tensor descriptors
(tl.make_tensor_descriptor, Triton >= 3.6). Out-of-bounds parts of a block are
zero-filled on load and dropped on store, so the kernel has no masks."""

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_descriptor_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        off_k = k * BLOCK_K
        a = a_desc.load([off_m, off_k])
        b = b_desc.load([off_k, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))


def _alloc(size: int, alignment: int, stream):
    # Scratch for the descriptors; required on GPU, harmless in the interpreter.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.empty(size, device=device, dtype=torch.int8)


def make_case(seed: int) -> dict:
    triton.set_allocator(_alloc)
    g = torch.Generator().manual_seed(seed)
    # Row strides must be 16-byte aligned for TMA: K and N multiples of 8 halves.
    M, N, K = 72, 56, 40
    BM, BN, BK = 32, 32, 32
    a = torch.randn(M, K, generator=g).to(torch.float16)
    b = torch.randn(K, N, generator=g).to(torch.float16)
    c = torch.empty(M, N, dtype=torch.float16)
    return {
        "kernel": "matmul_descriptor_kernel",
        "grid": (triton.cdiv(M, BM), triton.cdiv(N, BN)),
        "args": [a, b, c, M, N, K],
        "kwargs": {"BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": BK},
        "outputs": [2],
        "atol": 2e-2,
        "rtol": 1e-2,
    }


def reference(case: dict) -> list:
    a, b = case["args"][:2]
    return [(a.float() @ b.float()).to(torch.float16)]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather A's rows read through a device-side tensor descriptor
FUSE = ("all-gather{tensor=a_ptr dim=0 size=M}", 0, 0)
