"""GEMM + reduce-scatter with a persistent tensor-descriptor (TMA) GEMM: the
kernel shape of the benchmark's Hopper GEMMs, with gemm_rs.py's inputs, plan
and reference.

Its tiles store through ``c_desc.store([off_m, off_n], ...)``, so
fuse-peer-reduction can move the owner's sum into the epilogue:
``overlap-run examples/gemm_rs_tma.py --pipeline 'overlap{backend=ce reduce=epilogue}'``
(the own tiles run last in arrival order and add the peers' staged partials
before they store). Its 96 rows are whole 16-row tiles per rank at W = 2
and 3; at W = 4 a tile would hold rows of two ranks, which the epilogue
reduction refuses (such a tile would wait for the peer before announcing
the peer's rows).
"""

import os

import torch
import triton
import triton.language as tl


@triton.jit
def gemm_rs_tma_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                       stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       PROGRAMS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_M, BLOCK_N])
    num_n = tl.cdiv(N, BLOCK_N)
    tiles = tl.cdiv(M, BLOCK_M) * num_n
    for tile in range(tl.program_id(axis=0), tiles, PROGRAMS):
        off_m = (tile // num_n) * BLOCK_M
        off_n = (tile % num_n) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            acc = tl.dot(a_desc.load([off_m, k0]), b_desc.load([k0, off_n]), acc)
        c_desc.store([off_m, off_n], acc.to(c_ptr.dtype.element_ty))


# --- workload convention (see syncopate/runtime/workload.py) -----------------

from syncopate.runtime.workload import load_workload  # noqa: E402

_DENSE = load_workload(os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemm_rs.py")).module
BLOCK_M, BLOCK_N, BLOCK_K = _DENSE.BLOCK_M, _DENSE.BLOCK_N, _DENSE.BLOCK_K
M_DIM = 96  # 6 row tiles of 16: whole tiles per rank at W = 2 and 3 (the epilogue reduction needs that)
PROGRAMS = 5  # fewer programs than the 18 tiles of the 96 x 36 output

KERNEL = gemm_rs_tma_kernel
PLANS = _DENSE.PLANS
COLLECTIVES = _DENSE.COLLECTIVES


def make_inputs(rank, world, seed):
    """Rank's A (M_DIM x K_LOCAL) and B (K_LOCAL x N): its slice of the K dim."""
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    a = torch.randn(M_DIM, _DENSE.K_LOCAL, generator=g, dtype=torch.float32)
    b = torch.randn(_DENSE.K_LOCAL, _DENSE.N_DIM, generator=g, dtype=torch.float32)
    return {"a": a, "b": b}


def launch(kernel, a, b):
    """The rank's partial C = A @ B (M x N) on PROGRAMS programs."""
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, dtype=torch.float32, device=a.device)
    # device-side tensor descriptors take scratch memory from the host's allocator
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device=a.device))
    kernel[(PROGRAMS,)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, PROGRAMS=PROGRAMS)
    return c
