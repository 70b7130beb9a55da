"""GEMM + reduce-scatter whose output is a tensor descriptor made on the
host: each rank computes its partial C = A @ B over its slice of K and
writes it with ``c_desc.store``; rank r keeps rows ``shard_bounds(M, W, r)``
of the sum. The plan is on the descriptor: its tiles announce the rows
``[off_m, off_m + c_desc.block_shape[0])`` they stored."""

import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from syncopate.runtime.workload import load_workload

# the same partial products as the GEMM whose output is a plain pointer
_POINTER_OUTPUT = load_workload(os.path.join(os.path.dirname(os.path.abspath(__file__)), "host_descriptor_gemm_rs.py")).module
BLOCK_M, BLOCK_N, BLOCK_K = _POINTER_OUTPUT.BLOCK_M, _POINTER_OUTPUT.BLOCK_N, _POINTER_OUTPUT.BLOCK_K
make_inputs = _POINTER_OUTPUT.make_inputs


@triton.jit
def partial_gemm_kernel(a_ptr, b_ptr, c_desc, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc)


KERNEL = partial_gemm_kernel
PLANS = ["reduce-scatter{tensor=c_desc dim=0}"]
COLLECTIVES = {"c_desc": "out"}


def launch(kernel, a, b):
    """The rank's partial C (M x N, fp32), written through a host descriptor."""
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, dtype=torch.float32, device=a.device)
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    kernel[grid](a, b, c_desc, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c
