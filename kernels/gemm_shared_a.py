"""C_i = A @ B_i for up to three B's that share A, in one launch.

The GEMM ``syncopate.ops.all_gather_matmul`` fuses when it is given
several B's (a Q/K/V or gate/up projection of one gathered activation):
one launch covers every B's output tiles, so each gathered row is
multiplied by all of them as it arrives, where one launch per B would
gather A again or wait for the whole of it.

Program ids: axis 0 walks A's rows, axis 1 the column tiles of C_0, then
C_1, then C_2 (``cdiv(N_i, BLOCK_N)`` each); a program picks its B, C and
width with scalar selects, so its A loads are the plain GEMM's (rows
``pid_m * BLOCK_M + arange``) and the chunk analysis bounds them as it
bounds ``gemm_bf16.py``'s. Unused slots take a width of 0 and any
pointer: their tiles do not exist. Same frontend subset as
``gemm_bf16.py``.

The B's share one layout, named by ``B_NK`` rather than passed as
strides: a stride chosen per program is a runtime value, so Triton could
not see the unit stride it vectorises loads along. ``B_NK``: each B_i is
``W_i.t()`` with ``W_i`` (N_i x K) contiguous, as ``nn.Linear`` keeps its
weight; otherwise each B_i (K x N_i) is contiguous. Each C_i is
contiguous (row stride ``N_i``).
"""

import triton
import triton.language as tl


@triton.jit
def gemm_shared_a_kernel(a_ptr, b0_ptr, b1_ptr, b2_ptr, c0_ptr, c1_ptr, c2_ptr, M, N0, N1, N2, K,
                         stride_am, stride_ak,
                         B_NK: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    tiles0 = tl.cdiv(N0, BLOCK_N)
    tiles01 = tiles0 + tl.cdiv(N1, BLOCK_N)
    in0 = pid_n < tiles0
    in1 = pid_n < tiles01
    b_ptr = tl.where(in0, b0_ptr, tl.where(in1, b1_ptr, b2_ptr))
    c_ptr = tl.where(in0, c0_ptr, tl.where(in1, c1_ptr, c2_ptr))
    N = tl.where(in0, N0, tl.where(in1, N1, N2))
    tile_n = tl.where(in0, pid_n, tl.where(in1, pid_n - tiles0, pid_n - tiles01))
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        if B_NK:
            b_offsets = ks[:, None] + cols[None, :] * K
        else:
            b_offsets = ks[:, None] * N + cols[None, :]
        b = tl.load(b_ptr + b_offsets, mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rows[:, None] < M) & (cols[None, :] < N))
