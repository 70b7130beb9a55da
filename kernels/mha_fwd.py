"""Multi-head flash attention (non-causal) on the [S, H, D] layout: one
(BLOCK_M queries x head) tile per program, an online softmax over BLOCK_N
keys at a time, fp32 accumulator; the output dtype is O's.

Ulysses attention's kernel (``examples/ulysses_attention.py``, bench
workload ``ulysses-attn``): syncopate fuses an all-to-all of each of Q, K
and V along the sequence (``all-to-all{tensor=q_ptr dim=0 size=SEQ ...}``)
into it. No masks are skipped: SEQ need not divide by the blocks.
"""

import triton
import triton.language as tl


@triton.jit
def mha_kernel(q_ptr, k_ptr, v_ptr, o_ptr, SEQ, sm_scale,
               stride_qm, stride_qh, stride_qd, stride_km, stride_kh, stride_kd,
               stride_vm, stride_vh, stride_vd, stride_om, stride_oh, stride_od,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    off_h = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + off_h * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd,
                mask=offs_m[:, None] < SEQ, other=0.0)
    m_i = tl.zeros((BLOCK_M,), dtype=tl.float32) - float("inf")
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for start_n in range(0, SEQ, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + off_h * stride_kh + offs_n[:, None] * stride_km + offs_d[None, :] * stride_kd,
                    mask=offs_n[:, None] < SEQ, other=0.0)
        v = tl.load(v_ptr + off_h * stride_vh + offs_n[:, None] * stride_vm + offs_d[None, :] * stride_vd,
                    mask=offs_n[:, None] < SEQ, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * sm_scale
        qk = tl.where(offs_n[None, :] < SEQ, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_ij[:, None])
        alpha = tl.exp(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + off_h * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od,
             acc.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < SEQ)
