"""Ring attention: each rank holds its queries and its shard of K and V; the
K/V shards travel around the ring (rank r sends to r + 1), and each query
tile visits the shards in the order they arrive: its own first, then the
one from r - 1, r - 2, ... (non-causal flash attention, online softmax).

The single-GPU program is attention whose K/V loop visits ``SHARDS`` row
blocks in a ring order starting at block ``first`` and going down; with
``first`` the rank, that is the order a ring delivers them. Softmax does not
depend on the order, so the reference (the whole K/V, the same kernel) is
the attention over the whole sequence.

Plans: ``ring-exchange{tensor=k_ptr dim=0 size=N_KV name=rxk}`` and the same
for v_ptr: K/V gathered by neighbour forwarding, into a buffer of the whole
sequence (see docs/performance.md, "ring attention", for what a ring of
two rotating buffers would need from the plan language).
"""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


@triton.jit
def ring_attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, S_Q, N_KV, first, SHARDS, sm_scale,
                          stride_qm, stride_qd, stride_kn, stride_kd, stride_vn, stride_vd, stride_om, stride_od,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd, mask=offs_m[:, None] < S_Q,
                other=0.0)
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
            k = tl.load(k_ptr + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kd,
                        mask=offs_n[:, None] < hi, other=0.0)
            v = tl.load(v_ptr + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vd,
                        mask=offs_n[:, None] < hi, other=0.0)
            qk = tl.dot(q, tl.trans(k)) * sm_scale
            qk = tl.where(offs_n[None, :] < hi, qk, float("-inf"))
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            p = tl.exp(qk - m_ij[:, None])
            alpha = tl.exp(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None] + tl.dot(p, v)
            m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od, acc.to(o_ptr.dtype.element_ty),
             mask=offs_m[:, None] < S_Q)


# --- workload convention (see syncopate/runtime/workload.py) -----------------

S_Q, S_KV, HEAD_DIM = 20, 45, 16
BLOCK_M, BLOCK_N = 16, 16

KERNEL = ring_attention_kernel
PLANS = [
    "ring-exchange{tensor=k_ptr dim=0 size=N_KV name=rxk}",
    "ring-exchange{tensor=v_ptr dim=0 size=N_KV name=rxv}",
]
COLLECTIVES = {"k_ptr": "k", "v_ptr": "v"}


def make_inputs(rank, world, seed):
    """Rank's queries, its shard of K and V (``shard_bounds(S_KV, W, rank)``),
    and the ring order: its own shard first, of ``world`` shards."""
    _, size = shard_bounds(S_KV, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    q = torch.randn(S_Q, HEAD_DIM, generator=g, dtype=torch.float32)
    k = torch.randn(size, HEAD_DIM, generator=g, dtype=torch.float32)
    v = torch.randn(size, HEAD_DIM, generator=g, dtype=torch.float32)
    return {"q": q, "k": k, "v": v, "first": rank, "shards": world}


def launch(kernel, q, k, v, first, shards):
    """O = softmax(Q K^T / sqrt(D)) V over the whole K/V, visited in ``shards``
    blocks (shard_bounds' cut) from block ``first`` down."""
    s_q, d = q.shape
    n_kv = k.shape[0]
    o = torch.empty(s_q, d, dtype=torch.float32, device=q.device)
    grid = (triton.cdiv(s_q, BLOCK_M),)
    kernel[grid](q, k, v, o, s_q, n_kv, first, shards, 1.0 / d ** 0.5, *q.stride(), *k.stride(), *v.stride(),
                 *o.stride(), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, HEAD_DIM=d)
    return o
