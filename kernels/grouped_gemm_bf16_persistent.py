"""Grouped GEMM over a MoE receive buffer by a persistent kernel.

The TMA grouped GEMM (``grouped_gemm_bf16_tma.py``) inside a tile loop
``for tile in range(tl.program_id(0), TILES * num_n, PROGRAMS)`` over the
``TILES x num_n`` output tiles (row tile t of the tables times column tile
n), launched on min(tiles, SMs) programs, in Triton's GROUP_M order: the
programs running at once share a few row tiles and the weight's column
tiles, as in the dense persistent GEMM (``gemm_bf16_persistent.py``).
syncopate treats the loop variable as the tile index; a tile's rows come
from the tables, so its waits are bounded at run time.
"""

import triton
import triton.language as tl


@triton.jit
def grouped_gemm_persistent_kernel(x_ptr, w_ptr, out_ptr, tile_row_start_ptr, tile_rows_ptr, tile_expert_ptr, M, N,
                                   K, stride_xm, stride_xk, stride_we, stride_wk, stride_wn, stride_om, stride_on,
                                   TILES, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                   PROGRAMS: tl.constexpr, GROUP_M: tl.constexpr):
    """The grouped GEMM's arguments plus the row-tile count of the tables
    (TILES), the program count and the L2 group height."""
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, K], strides=[stride_xm, 1], block_shape=[BLOCK_M, BLOCK_K])
    num_n = tl.cdiv(N, BLOCK_N)
    for tile in range(tl.program_id(axis=0), TILES * num_n, PROGRAMS):
        first_t = (tile // (GROUP_M * num_n)) * GROUP_M
        group_rows = min(TILES - first_t, GROUP_M)
        t = first_t + tile % group_rows
        off_n = ((tile % (GROUP_M * num_n)) // group_rows) * BLOCK_N
        row_start = tl.load(tile_row_start_ptr + t)
        nrows = tl.load(tile_rows_ptr + t)
        expert = tl.load(tile_expert_ptr + t)
        w_desc = tl.make_tensor_descriptor(w_ptr + expert * stride_we, shape=[K, N], strides=[stride_wk, 1],
                                           block_shape=[BLOCK_K, BLOCK_N])
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            x = x_desc.load([row_start, k0])
            w = w_desc.load([k0, off_n])
            acc = tl.dot(x, w, acc)
        rows = row_start + tl.arange(0, BLOCK_M)
        cols = off_n + tl.arange(0, BLOCK_N)
        tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, acc.to(out_ptr.dtype.element_ty),
                 mask=((tl.arange(0, BLOCK_M) < nrows) & (rows < M))[:, None] & (cols[None, :] < N))
