"""Ring attention: each rank holds its queries and its shard of K and V; the
K/V shards travel around the ring (rank r sends to r + 1), and each query
tile visits the shards in the order they arrive: its own first, then the
one from r - 1, r - 2, ... (non-causal flash attention, online softmax,
grouped K/V heads).

The single-GPU program is attention whose K/V loop visits ``shards`` row
blocks in a ring order starting at block ``first`` and going down
(``kernels/ring_attn.py``); with ``first`` the rank, that is the order a
ring delivers them. Softmax does not depend on the order, so the reference
(the whole K/V, the same kernel) is the attention over the whole sequence.

Plans: ``ring-exchange{tensor=k_ptr dim=0 size=N_KV name=rxk}`` and the same
for v_ptr: K/V gathered by neighbour forwarding into a buffer of the whole
sequence. Ring attention's usual two rotating buffers of one shard each are
not expressible (docs/performance.md, "ring attention").
"""

import torch
import triton

from syncopate.kernels.ring_attn import ring_attn_kernel
from syncopate.runtime.workload import shard_bounds


# --- workload convention (see syncopate/runtime/workload.py) -----------------

S_Q, S_KV, HEADS, KV_HEADS, HEAD_DIM = 20, 45, 2, 1, 16
BLOCK_M, BLOCK_N = 16, 16

KERNEL = ring_attn_kernel
PLANS = [
    "ring-exchange{tensor=k_ptr dim=0 size=N_KV name=rxk}",
    "ring-exchange{tensor=v_ptr dim=0 size=N_KV name=rxv}",
]
COLLECTIVES = {"k_ptr": "k", "v_ptr": "v"}


def make_inputs(rank, world, seed):
    """Rank's queries [S_Q, HEADS, D], its shard of K and V
    (``shard_bounds(S_KV, W, rank)`` rows, [rows, KV_HEADS, D]), and the ring
    order: its own shard first, of ``world`` shards."""
    _, size = shard_bounds(S_KV, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    q = torch.randn(S_Q, HEADS, HEAD_DIM, generator=g, dtype=torch.float32)
    k = torch.randn(size, KV_HEADS, HEAD_DIM, generator=g, dtype=torch.float32)
    v = torch.randn(size, KV_HEADS, HEAD_DIM, generator=g, dtype=torch.float32)
    return {"q": q, "k": k, "v": v, "first": rank, "shards": world}


def launch(kernel, q, k, v, first, shards):
    """O[:, h] = softmax(Q[:, h] K[:, h // G]^T / sqrt(D)) V[:, h // G] over the
    whole K/V, visited in ``shards`` blocks from block ``first`` down."""
    s_q, heads, d = q.shape
    n_kv, kv_heads, _ = k.shape
    o = torch.empty(s_q, heads, d, dtype=torch.float32, device=q.device)
    grid = (triton.cdiv(s_q, BLOCK_M), heads)
    kernel[grid](q, k, v, o, s_q, n_kv, first, shards, 1.0 / d ** 0.5, *q.stride(), *k.stride(), *v.stride(),
                 *o.stride(), GROUP=heads // kv_heads, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, HEAD_DIM=d)
    return o
