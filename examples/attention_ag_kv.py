"""Attention with K/V all-gathered along the sequence (context parallelism):
each rank has its local queries and a shard of the keys/values; the keys and
values are gathered before a single-head, non-causal flash-attention kernel.

Plans: ``all-gather{tensor=k_ptr dim=0 size=N_KV name=agk}`` and the same for
v_ptr; rank r holds rows ``shard_bounds(N_KV, W, r)`` of K and V.
"""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, S_Q, N_KV, sm_scale,
                     stride_qm, stride_qd, stride_kn, stride_kd, stride_vn, stride_vd, stride_om, stride_od,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    ds = tl.arange(0, BLOCK_D)
    q = tl.load(q_ptr + rows[:, None] * stride_qm + ds[None, :] * stride_qd, mask=rows[:, None] < S_Q, other=0.0)
    m_i = tl.zeros((BLOCK_M,), dtype=tl.float32) - float("inf")
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), dtype=tl.float32)
    for start_n in range(0, N_KV, BLOCK_N):
        kv = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + kv[:, None] * stride_kn + ds[None, :] * stride_kd, mask=kv[:, None] < N_KV, other=0.0)
        v = tl.load(v_ptr + kv[:, None] * stride_vn + ds[None, :] * stride_vd, mask=kv[:, None] < N_KV, other=0.0)
        s = tl.dot(q, tl.trans(k)) * sm_scale
        s = tl.where(kv[None, :] < N_KV, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p, v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + rows[:, None] * stride_om + ds[None, :] * stride_od, acc.to(o_ptr.dtype.element_ty),
             mask=rows[:, None] < S_Q)


# --- workload convention (see syncopate/runtime/workload.py) -----------------

S_Q, S_KV, HEAD_DIM = 20, 45, 16
BLOCK_M, BLOCK_N = 16, 16

KERNEL = attention_kernel
PLANS = [
    "all-gather{tensor=k_ptr dim=0 size=N_KV name=agk}",
    "all-gather{tensor=v_ptr dim=0 size=N_KV name=agv}",
]
COLLECTIVES = {"k_ptr": "k", "v_ptr": "v"}


def make_inputs(rank, world, seed):
    """Rank's local queries ``q`` (S_Q x D) and its rows of K and V
    (shard_bounds(S_KV, W, rank) of the sequence)."""
    start, size = shard_bounds(S_KV, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    q = torch.randn(S_Q, HEAD_DIM, generator=g, dtype=torch.float32)
    k = torch.randn(size, HEAD_DIM, generator=g, dtype=torch.float32)
    v = torch.randn(size, HEAD_DIM, generator=g, dtype=torch.float32)
    return {"q": q, "k": k, "v": v}


def launch(kernel, q, k, v):
    """O = softmax(Q K^T / sqrt(D)) V with K, V the full (gathered) sequence."""
    s_q, d = q.shape
    n_kv = k.shape[0]
    o = torch.empty(s_q, d, dtype=torch.float32, device=q.device)
    grid = (triton.cdiv(s_q, BLOCK_M),)
    kernel[grid](q, k, v, o, s_q, n_kv, 1.0 / d ** 0.5,
                 q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1),
                 o.stride(0), o.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=d)
    return o
