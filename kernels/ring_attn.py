"""Ring attention's kernel: multi-head flash attention (non-causal) on the
[S, H, D] layout whose loop over K/V visits ``SHARDS`` row blocks in ring
order, from block ``first`` down (first, first - 1, ... mod SHARDS); the
blocks are cut as plans cut rows (``N_KV // SHARDS`` each, the last the
rest). One (BLOCK_M queries x head) tile per program, online softmax, fp32
accumulator; the output dtype is O's.

With ``first`` the rank and K/V delivered by a ring (rank r sends to r + 1,
``ring-exchange{tensor=k_ptr dim=0 size=N_KV}``), a tile starts on its own
shard and meets the others in the order they arrive
(``examples/ring_attention.py``, bench workload ``ring-attn``). Softmax
does not depend on the order: on one GPU, any ``first`` is attention.
"""

import triton
import triton.language as tl


@triton.jit
def ring_attn_kernel(q_ptr, k_ptr, v_ptr, o_ptr, S_Q, N_KV, first, SHARDS, sm_scale,
                     stride_qm, stride_qh, stride_qd, stride_kn, stride_kh, stride_kd,
                     stride_vn, stride_vh, stride_vd, stride_om, stride_oh, stride_od,
                     GROUP: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    off_h = tl.program_id(axis=1)
    off_kv = off_h // GROUP
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + off_h * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd,
                mask=offs_m[:, None] < S_Q, other=0.0)
    m_i = tl.zeros((BLOCK_M,), dtype=tl.float32) - float("inf")
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    shard_rows = N_KV // SHARDS
    for step in range(0, SHARDS):
        shard = (first - step + SHARDS) % SHARDS
        lo = shard * shard_rows
        hi = tl.where(shard == SHARDS - 1, N_KV, lo + shard_rows)
        for start_n in range(lo, hi, BLOCK_N):
            offs_n = start_n + tl.arange(0, BLOCK_N)
            k = tl.load(k_ptr + off_kv * stride_kh + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kd,
                        mask=offs_n[:, None] < hi, other=0.0)
            v = tl.load(v_ptr + off_kv * stride_vh + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vd,
                        mask=offs_n[:, None] < hi, other=0.0)
            qk = tl.dot(q, tl.trans(k)) * sm_scale
            qk = tl.where(offs_n[None, :] < hi, qk, float("-inf"))
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            p = tl.exp(qk - m_ij[:, None])
            alpha = tl.exp(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
            m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + off_h * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od,
             acc.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < S_Q)
