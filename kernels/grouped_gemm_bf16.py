"""Grouped GEMM over a MoE receive buffer: tile t multiplies rows
``[row_start[t], row_start[t] + rows[t])`` of ``x`` by expert
``expert[t]``'s weight, one (BLOCK_M x BLOCK_N) output tile per program.

The benchmark's kernel for ``a2a-gemm``: the tile tables come from the token
counts (bench/moe.py), and syncopate fuses it with the dispatch all-to-all
of ``x``'s rows (``all-to-all{tensor=x_ptr dim=0 splits=...}``); a tile's
rows are loaded from its table, so the fused kernel waits for the chunks its
rows touch at run time.
"""

import triton
import triton.language as tl


@triton.jit
def grouped_gemm_kernel(x_ptr, w_ptr, out_ptr, tile_row_start_ptr, tile_rows_ptr, tile_expert_ptr, M, N, K,
                        stride_xm, stride_xk, stride_we, stride_wk, stride_wn, stride_om, stride_on,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_t = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    row_start = tl.load(tile_row_start_ptr + pid_t)
    nrows = tl.load(tile_rows_ptr + pid_t)
    expert = tl.load(tile_expert_ptr + pid_t)
    rows = row_start + tl.arange(0, BLOCK_M)
    row_ok = (tl.arange(0, BLOCK_M) < nrows) & (rows < M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + rows[:, None] * stride_xm + ks[None, :] * stride_xk,
                    mask=row_ok[:, None] & (ks[None, :] < K), other=0.0)
        w = tl.load(w_ptr + expert * stride_we + ks[:, None] * stride_wk + cols[None, :] * stride_wn,
                    mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc += tl.dot(x, w)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, acc.to(out_ptr.dtype.element_ty),
             mask=row_ok[:, None] & (cols[None, :] < N))
