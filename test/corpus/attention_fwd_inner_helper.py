"""Causal attention forward in the style of Triton's fused-attention tutorial
(the block-pointer version): the kernel makes block pointers for Q, K, V and
O and hands K and V to a jit helper, `_attn_fwd_inner`, which moves them to
the first key block of its stage with `tl.advance(K_block_ptr, (0, lo))` and
advances them through its loop; the helper is called once for the blocks left
of the diagonal (`STAGE = 1`, no mask) and once for the diagonal block
(`STAGE = 2`, masked with `tl.where`), choosing `lo, hi` per stage in an
`if`/`elif`/`else` on the constexpr stage, and returns `acc, l_i, m_i`. The
kernel passes `4 - STAGE` and `2` as the stage, the way the tutorial does."""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q,
                    K_block_ptr, V_block_ptr,
                    start_m, qk_scale,
                    BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
                    STAGE: tl.constexpr, offs_m, offs_n, N_CTX):
    # the key blocks this stage covers
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    K_block_ptr = tl.advance(K_block_ptr, (0, lo))
    V_block_ptr = tl.advance(V_block_ptr, (lo, 0))
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = tl.load(K_block_ptr)
        qk = tl.dot(q, k)
        if STAGE == 2:
            causal = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(causal, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(V_block_ptr)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
        V_block_ptr = tl.advance(V_block_ptr, (BLOCK_N, 0))
        K_block_ptr = tl.advance(K_block_ptr, (0, BLOCK_N))
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(Q, K, V, sm_scale, M, Out,
              stride_qz, stride_qh, stride_qm, stride_qk,
              stride_kz, stride_kh, stride_kn, stride_kk,
              stride_vz, stride_vh, stride_vk, stride_vn,
              stride_oz, stride_oh, stride_om, stride_on,
              Z, H, N_CTX,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    qvk_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh

    Q_block_ptr = tl.make_block_ptr(
        base=Q + qvk_offset,
        shape=(N_CTX, HEAD_DIM),
        strides=(stride_qm, stride_qk),
        offsets=(start_m * BLOCK_M, 0),
        block_shape=(BLOCK_M, HEAD_DIM),
        order=(1, 0),
    )
    V_block_ptr = tl.make_block_ptr(
        base=V + qvk_offset,
        shape=(N_CTX, HEAD_DIM),
        strides=(stride_vk, stride_vn),
        offsets=(0, 0),
        block_shape=(BLOCK_N, HEAD_DIM),
        order=(1, 0),
    )
    K_block_ptr = tl.make_block_ptr(
        base=K + qvk_offset,
        shape=(HEAD_DIM, N_CTX),
        strides=(stride_kk, stride_kn),
        offsets=(0, 0),
        block_shape=(HEAD_DIM, BLOCK_N),
        order=(0, 1),
    )
    O_block_ptr = tl.make_block_ptr(
        base=Out + qvk_offset,
        shape=(N_CTX, HEAD_DIM),
        strides=(stride_om, stride_on),
        offsets=(start_m * BLOCK_M, 0),
        block_shape=(BLOCK_M, HEAD_DIM),
        order=(1, 0),
    )
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale
    qk_scale *= 1.44269504  # 1/log(2)
    q = tl.load(Q_block_ptr)
    # stage 1: the key blocks left of the diagonal
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr,
                                        start_m, qk_scale,
                                        BLOCK_M, HEAD_DIM, BLOCK_N,
                                        4 - STAGE, offs_m, offs_n, N_CTX)
    # stage 2: the diagonal block, masked
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr,
                                        start_m, qk_scale,
                                        BLOCK_M, HEAD_DIM, BLOCK_N,
                                        2, offs_m, offs_n, N_CTX)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    m_ptrs = M + off_hz * N_CTX + offs_m
    tl.store(m_ptrs, m_i)
    tl.store(O_block_ptr, acc.to(Out.type.element_ty))


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    Z, H, S, D = 1, 2, 64, 16
    BLOCK_M, BLOCK_N = 16, 16
    q = torch.randn(Z, H, S, D, generator=g).to(torch.float16)
    k = torch.randn(Z, H, S, D, generator=g).to(torch.float16)
    v = torch.randn(Z, H, S, D, generator=g).to(torch.float16)
    o = torch.empty(Z, H, S, D, dtype=torch.float16)
    m = torch.empty(Z * H, S, dtype=torch.float32)  # the rows' log-sum-exp (base 2), kept for a backward
    return {
        "kernel": "_attn_fwd",
        "grid": (triton.cdiv(S, BLOCK_M), Z * H),
        "args": [q, k, v, 1.0 / math.sqrt(D), m, o,
                 *q.stride(), *k.stride(), *v.stride(), *o.stride(), Z, H, S],
        "kwargs": {"HEAD_DIM": D, "BLOCK_M": BLOCK_M, "BLOCK_N": BLOCK_N, "STAGE": 3},
        "outputs": [5, 4],
        "atol": 1e-2,
        "rtol": 1e-2,
    }


def reference(case: dict) -> list:
    q, k, v, sm_scale = case["args"][:4]
    S = q.shape[2]
    scores = (q.float() @ k.float().transpose(-1, -2)) * sm_scale
    causal = torch.tril(torch.ones(S, S, dtype=torch.bool, device=q.device))
    scores = scores.masked_fill(~causal, float("-inf"))
    p = torch.softmax(scores, dim=-1)
    lse = torch.logsumexp(scores, dim=-1) / math.log(2.0)
    return [(p @ v.float()).to(torch.float16), lse.reshape(-1, S)]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather K along the sequence (context
# parallelism); K reaches the helper as a block pointer
FUSE = ("all-gather{tensor=K dim=2 size=N_CTX}", 1, 2)
