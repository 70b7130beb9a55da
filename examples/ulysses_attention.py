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
import triton.language as tl

from syncopate.runtime.workload import shard_bounds


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
        acc = acc * alpha[:, None] + tl.dot(p, v)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + off_h * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od,
             acc.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < SEQ)


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
