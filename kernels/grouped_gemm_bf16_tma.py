"""Grouped GEMM over a MoE receive buffer through tensor descriptors (TMA).

The same program and arguments as ``grouped_gemm_bf16.py`` (tile t
multiplies rows ``[row_start[t], row_start[t] + rows[t])`` of ``x`` by
expert ``expert[t]``'s weight), but ``x`` and ``w`` are read by TMA:
each program builds a ``K x N`` descriptor over its expert's weight
(``w_ptr + expert * stride_we``; rows must be contiguous). A tile shorter than
BLOCK_M loads a few rows of the next segment; they are computed and then
dropped by the masked store, which stays a pointer store for that reason.
"""

import triton
import triton.language as tl


@triton.jit
def grouped_gemm_tma_kernel(x_ptr, w_ptr, out_ptr, tile_row_start_ptr, tile_rows_ptr, tile_expert_ptr, M, N, K,
                            stride_xm, stride_xk, stride_we, stride_wk, stride_wn, stride_om, stride_on,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Same arguments as ``grouped_gemm_kernel``; ``stride_xk`` and ``stride_wn`` are 1."""
    pid_t = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    row_start = tl.load(tile_row_start_ptr + pid_t)
    nrows = tl.load(tile_rows_ptr + pid_t)
    expert = tl.load(tile_expert_ptr + pid_t)
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, K], strides=[stride_xm, 1], block_shape=[BLOCK_M, BLOCK_K])
    w_desc = tl.make_tensor_descriptor(w_ptr + expert * stride_we, shape=[K, N], strides=[stride_wk, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        x = x_desc.load([row_start, k0])
        w = w_desc.load([k0, off_n])
        acc = tl.dot(x, w, acc)
    rows = row_start + tl.arange(0, BLOCK_M)
    cols = off_n + tl.arange(0, BLOCK_N)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, acc.to(out_ptr.dtype.element_ty),
             mask=((tl.arange(0, BLOCK_M) < nrows) & (rows < M))[:, None] & (cols[None, :] < N))
