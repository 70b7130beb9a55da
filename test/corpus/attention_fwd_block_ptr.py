"""Attention forward in the block-pointer style of older Triton tutorials:
Q, K, V and O are block pointers into (batch*heads, seq, head_dim) tensors; K
is read transposed through `order=(0, 1)` with shape (head_dim, seq), so its
sequence dim is the block pointer's dim 1; K and V advance along the sequence
in the loop (`tl.advance(K_block_ptr, (0, BLOCK_N))`,
`tl.advance(V_block_ptr, (BLOCK_N, 0))`). The sequence length is a multiple
of BLOCK_N, as such kernels require (no boundary checks on K and V)."""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def attn_fwd_block_ptr_kernel(Q, K, V, Out, sm_scale,
                              stride_qh, stride_qm, stride_qk,
                              stride_kh, stride_kn, stride_kk,
                              stride_vh, stride_vn, stride_vk,
                              stride_oh, stride_om, stride_ok,
                              N_CTX,
                              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    q_offset = off_hz.to(tl.int64) * stride_qh
    kv_offset = off_hz.to(tl.int64) * stride_kh
    Q_block_ptr = tl.make_block_ptr(base=Q + q_offset, shape=(N_CTX, HEAD_DIM), strides=(stride_qm, stride_qk),
                                    offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    K_block_ptr = tl.make_block_ptr(base=K + kv_offset, shape=(HEAD_DIM, N_CTX), strides=(stride_kk, stride_kn),
                                    offsets=(0, 0), block_shape=(HEAD_DIM, BLOCK_N), order=(0, 1))
    V_block_ptr = tl.make_block_ptr(base=V + kv_offset, shape=(N_CTX, HEAD_DIM), strides=(stride_vn, stride_vk),
                                    offsets=(0, 0), block_shape=(BLOCK_N, HEAD_DIM), order=(1, 0))
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(Q_block_ptr, boundary_check=(0,))
    for start_n in range(0, N_CTX, BLOCK_N):
        k = tl.load(K_block_ptr)
        qk = tl.dot(q, k) * qk_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V_block_ptr)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
        K_block_ptr = tl.advance(K_block_ptr, (0, BLOCK_N))
        V_block_ptr = tl.advance(V_block_ptr, (BLOCK_N, 0))
    acc = acc / l_i[:, None]
    O_block_ptr = tl.make_block_ptr(base=Out + q_offset, shape=(N_CTX, HEAD_DIM), strides=(stride_om, stride_ok),
                                    offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    tl.store(O_block_ptr, acc.to(Out.type.element_ty), boundary_check=(0,))


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    BH, S, D = 2, 64, 16
    BLOCK_M, BLOCK_N = 16, 16
    q = torch.randn(BH, S, D, generator=g).to(torch.float16)
    k = torch.randn(BH, S, D, generator=g).to(torch.float16)
    v = torch.randn(BH, S, D, generator=g).to(torch.float16)
    o = torch.empty(BH, S, D, dtype=torch.float16)
    return {
        "kernel": "attn_fwd_block_ptr_kernel",
        "grid": (triton.cdiv(S, BLOCK_M), BH),
        "args": [q, k, v, o, 1.0 / math.sqrt(D),
                 *q.stride(), *k.stride(), *v.stride(), *o.stride(), S],
        "kwargs": {"HEAD_DIM": D, "BLOCK_M": BLOCK_M, "BLOCK_N": BLOCK_N},
        "outputs": [3],
        "atol": 1e-2,
        "rtol": 1e-2,
    }


def reference(case: dict) -> list:
    q, k, v, _, sm_scale = case["args"][:5]
    p = torch.softmax((q.float() @ k.float().transpose(-1, -2)) * sm_scale, dim=-1)
    return [(p @ v.float()).to(torch.float16)]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather V along the sequence (context parallelism)
FUSE = ("all-gather{tensor=V dim=1 size=N_CTX}", 2, 1)
