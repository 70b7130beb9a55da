"""Ulysses attention, first half: an all-to-all turns sequence-sharded Q/K/V
into head-sharded ones, then multi-head (non-causal) flash attention runs
over the whole sequence for the rank's heads.

Every rank starts with its rows of the sequence for all H = W * HEADS_LOCAL
heads (``shard_bounds(SEQ, W, r)`` rows, [rows, H, D]). Its send buffer
holds, for each destination d in order, its rows for d's heads
``[d*HEADS_LOCAL, (d+1)*HEADS_LOCAL)``; after the all-to-all a rank's
receive buffer is [SEQ, HEADS_LOCAL, D], the sources' rows in sequence
order: exactly what the single-GPU attention kernel reads.

Plans: one ``all-to-all{tensor=<q|k|v>_ptr dim=0 splits=...}`` per input;
splits[s][d] is rank s's sequence rows, whatever d. The way back (heads to
sequence) is ``ulysses_out_proj.py``: the output projection reads it.
"""

import torch
import triton

from syncopate.kernels.mha_fwd import mha_kernel
from syncopate.runtime.workload import shard_bounds


# --- workload convention (see syncopate/runtime/workload.py) -----------------

SEQ_LEN, HEADS_LOCAL, HEAD_DIM = 36, 2, 16
BLOCK_M, BLOCK_N = 16, 16

KERNEL = mha_kernel
COLLECTIVES = {"q_ptr": "q", "k_ptr": "k", "v_ptr": "v"}


def splits(world):
    """splits[s][d]: sequence rows rank s sends rank d (its rows, for d's heads)."""
    return [[shard_bounds(SEQ_LEN, world, s)[1]] * world for s in range(world)]


def PLANS(world):
    flat = ",".join(str(n) for row in splits(world) for n in row)
    return [f"all-to-all{{tensor={t}_ptr dim=0 size=SEQ splits={flat} name=a2a{t}}}" for t in "qkv"]


def sequence_to_heads(x, world):
    """The send buffer of a rank's [rows, H, D] slice: for each destination d,
    the rows for d's heads (a copy: the blocks are not contiguous in x)."""
    rows, heads, d = x.shape
    return x.view(rows, world, heads // world, d).transpose(0, 1).reshape(world * rows, heads // world, d)


def make_inputs(rank, world, seed):
    """Rank's rows of Q, K and V for every head, as all-to-all send buffers."""
    _, rows = shard_bounds(SEQ_LEN, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    qkv = [torch.randn(rows, world * HEADS_LOCAL, HEAD_DIM, generator=g, dtype=torch.float32) for _ in range(3)]
    return {name: sequence_to_heads(x, world) for name, x in zip("qkv", qkv)}


def launch(kernel, q, k, v):
    """O[s, h] = softmax(Q[:, h] K[:, h]^T / sqrt(D)) V[:, h] for every local head h."""
    seq, heads, d = q.shape
    o = torch.empty(seq, heads, d, dtype=torch.float32, device=q.device)
    grid = (triton.cdiv(seq, BLOCK_M), heads)
    kernel[grid](q, k, v, o, seq, 1.0 / d ** 0.5, *q.stride(), *k.stride(), *v.stride(), *o.stride(),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, HEAD_DIM=d)
    return o
