"""GEMM + reduce-scatter whose A and B come as tensor descriptors made on the
host (``TensorDescriptor.from_tensor``, the persistent-matmul tutorial's
host-side variant); C is a plain pointer, the reduce-scattered tensor. The
descriptors are not plan tensors, so they stay as they are in the fused
kernel; a plan on one of them is refused (its block shape is set on the
host)."""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

M_DIM, N_DIM, K_LOCAL = 40, 32, 32  # the last row tile is partial: the descriptor clips it
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16


@triton.jit
def gemm_host_desc_kernel(a_desc, b_desc, c_ptr, M, N, K, stride_cm, stride_cn,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_am = pid_m * BLOCK_M
    offs_bn = pid_n * BLOCK_N
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        offs_k = k * BLOCK_K
        a = a_desc.load([offs_am, offs_k])
        b = b_desc.load([offs_k, offs_bn])
        accumulator = tl.dot(a, b, accumulator)
    offs_cm = offs_am + tl.arange(0, BLOCK_M)
    offs_cn = offs_bn + tl.arange(0, BLOCK_N)
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn, accumulator, mask=c_mask)


KERNEL = gemm_host_desc_kernel
PLANS = ["reduce-scatter{tensor=c_ptr dim=0}"]
COLLECTIVES = {"c_ptr": "out"}


def make_inputs(rank, world, seed):
    """Rank's A (M x K_LOCAL) and B (K_LOCAL x N): its slice of the K dim."""
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    a = torch.randn(M_DIM, K_LOCAL, generator=g).to(torch.float16)
    b = torch.randn(K_LOCAL, N_DIM, generator=g).to(torch.float16)
    return {"a": a, "b": b}


def launch(kernel, a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, dtype=torch.float32, device=a.device)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_K, BLOCK_N])
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    kernel[grid](a_desc, b_desc, c, M, N, K, c.stride(0), c.stride(1),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c
