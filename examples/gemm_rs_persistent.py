"""gemm_rs.py's GEMM + reduce-scatter as a persistent kernel: PROGRAMS
programs walk all the output tiles, ``tile = program, program + PROGRAMS,
...``.

What syncopate does with it (``overlap-run examples/gemm_rs_persistent.py``):
the tile loop's variable is the tile index (chunk-dependency-analysis),
tiles run in departure order (tile-reorder remaps the loop variable: the
rows other ranks own first), and each iteration signals the chunks its
store wrote right after the store (insert-signals), so the runtime can send
a chunk as soon as all its tiles are done.

Inputs, shapes and the reference are gemm_rs.py's.
"""

import os

import triton
import triton.language as tl


@triton.jit
def gemm_rs_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                              stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                              PROGRAMS: tl.constexpr):
    num_n = tl.cdiv(N, BLOCK_N)
    tiles = tl.cdiv(M, BLOCK_M) * num_n
    for tile in range(tl.program_id(axis=0), tiles, PROGRAMS):
        rows = (tile // num_n) * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = (tile % num_n) * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            ks = k0 + tl.arange(0, BLOCK_K)
            a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak,
                        mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn,
                        mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
            acc += tl.dot(a, b)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),
                 mask=(rows[:, None] < M) & (cols[None, :] < N))


# --- workload convention (see syncopate/runtime/workload.py) -----------------

import torch  # noqa: E402

from syncopate.runtime.workload import load_workload  # noqa: E402

_DENSE = load_workload(os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemm_rs.py")).module
BLOCK_M, BLOCK_N, BLOCK_K = _DENSE.BLOCK_M, _DENSE.BLOCK_N, _DENSE.BLOCK_K
PROGRAMS = 5  # fewer programs than the 12 tiles of the 50 x 36 output

KERNEL = gemm_rs_persistent_kernel
PLANS = _DENSE.PLANS
COLLECTIVES = _DENSE.COLLECTIVES
make_inputs = _DENSE.make_inputs


def launch(kernel, a, b):
    """The rank's partial C = A @ B (M x N), on PROGRAMS programs."""
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, dtype=torch.float32, device=a.device)
    kernel[(PROGRAMS,)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, PROGRAMS=PROGRAMS)
    return c
