"""Fused attention forward (non-causal) with the online-softmax recurrence:
m_i (running max), l_i (running denominator) and acc are carried through the
loop over key/value blocks. Scores are scaled by log2(e) so exp2 can be used."""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def attn_fwd_kernel(
    Q, K, V, Out, sm_scale,
    stride_qb, stride_qm, stride_qd,
    stride_kb, stride_kn, stride_kd,
    stride_vb, stride_vn, stride_vd,
    stride_ob, stride_om, stride_od,
    seq_len,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)

    q_ptrs = Q + off_bh * stride_qb + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd
    q = tl.load(q_ptrs, mask=offs_m[:, None] < seq_len, other=0.0)

    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1 / ln(2)

    k_base = K + off_bh * stride_kb
    v_base = V + off_bh * stride_vb
    for start_n in range(0, seq_len, BLOCK_N):
        cols = start_n + offs_n
        col_mask = cols < seq_len
        k = tl.load(k_base + cols[:, None] * stride_kn + offs_d[None, :] * stride_kd,
                    mask=col_mask[:, None], other=0.0)
        qk = tl.dot(q, tl.trans(k))
        qk = tl.where(col_mask[None, :], qk * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :] * stride_vd,
                    mask=col_mask[:, None], other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij

    acc = acc / l_i[:, None]
    o_ptrs = Out + off_bh * stride_ob + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od
    tl.store(o_ptrs, acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < seq_len)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    BH, S, D = 3, 100, 32
    BLOCK_M, BLOCK_N = 32, 32
    q = torch.randn(BH, S, D, generator=g).to(torch.float16)
    k = torch.randn(BH, S, D, generator=g).to(torch.float16)
    v = torch.randn(BH, S, D, generator=g).to(torch.float16)
    o = torch.empty(BH, S, D, dtype=torch.float16)
    sm_scale = 1.0 / math.sqrt(D)
    return {
        "kernel": "attn_fwd_kernel",
        "grid": (triton.cdiv(S, BLOCK_M), BH),
        "args": [q, k, v, o, sm_scale,
                 q.stride(0), q.stride(1), q.stride(2),
                 k.stride(0), k.stride(1), k.stride(2),
                 v.stride(0), v.stride(1), v.stride(2),
                 o.stride(0), o.stride(1), o.stride(2),
                 S],
        "kwargs": {"HEAD_DIM": D, "BLOCK_M": BLOCK_M, "BLOCK_N": BLOCK_N},
        "outputs": [3],
        "atol": 1e-2,
        "rtol": 1e-2,
    }


def reference(case: dict) -> list:
    q, k, v, _, sm_scale = case["args"][:5]
    s = (q.float() @ k.float().transpose(-1, -2)) * sm_scale
    p = torch.softmax(s, dim=-1)
    return [(p @ v.float()).to(torch.float16)]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather K along the sequence (context parallelism)
FUSE = ("all-gather{tensor=K dim=1 size=seq_len}", 1, 1)
