"""Ulysses attention, second half: an all-to-all turns the head-sharded
attention output back into sequence-sharded rows, and the output projection
(a plain GEMM, out = O @ W_o) reads them.

After ``ulysses_attention.py`` rank s holds O for the whole sequence and its
heads ``[s*HEADS_LOCAL, (s+1)*HEADS_LOCAL)``: [SEQ, HEADS_LOCAL * D]. Rank d
wants its ``SEQ/W`` sequence rows for every head, [SEQ/W, H * D], heads in
order: the block from source s is the column block ``[s*HL*D, (s+1)*HL*D)``.
So the all-to-all is along dim 1 of the GEMM's A, and a rank's send buffer
is [SEQ/W, W * HL * D]: for each destination d, column block d holds O's
rows of d's sequence shard (a copy of O's rows, side by side). The sequence
is cut evenly (SEQ divisible by W): blocks side by side need equal rows.

Plan: ``all-to-all{tensor=a_ptr dim=1 size=K splits=...}``, splits[s][d] =
HL * D. K is HL*D*W, k-blocks of BLOCK_K never straddle a source block
when BLOCK_K divides HL*D; here they do not divide (HL*D = 24, BLOCK_K = 16),
so some k-blocks wait for two sources.
"""

import torch
import triton

from syncopate.kernels.gemm_bf16 import gemm_kernel


# --- workload convention (see syncopate/runtime/workload.py) -----------------

SEQ_LEN, HEADS_LOCAL, HEAD_DIM, HIDDEN = 36, 2, 12, 40
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16

KERNEL = gemm_kernel
COLLECTIVES = {"a_ptr": "o"}


def PLANS(world):
    flat = ",".join([str(HEADS_LOCAL * HEAD_DIM)] * (world * world))
    return [f"all-to-all{{tensor=a_ptr dim=1 size=K splits={flat}}}"]


def heads_to_sequence(o, world):
    """The send buffer of a rank's [SEQ, HL*D] output: column block d holds
    the rows of d's sequence shard."""
    seq, width = o.shape
    return o.view(world, seq // world, width).transpose(0, 1).reshape(seq // world, world * width)


def make_inputs(rank, world, seed):
    """Rank's attention output for its heads (as the send buffer) and the
    whole W_o [H*D, HIDDEN] (the same on every rank)."""
    if SEQ_LEN % world:
        raise ValueError(f"SEQ_LEN={SEQ_LEN} is not divisible by W={world}")
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    o = torch.randn(SEQ_LEN, HEADS_LOCAL * HEAD_DIM, generator=g, dtype=torch.float32)
    gw = torch.Generator().manual_seed(seed * 1000 + 999)
    w = torch.randn(world * HEADS_LOCAL * HEAD_DIM, HIDDEN, generator=gw, dtype=torch.float32)
    return {"o": heads_to_sequence(o, world), "w": w}


def launch(kernel, o, w):
    """out = O @ W_o over the rank's sequence rows, O [SEQ/W, H*D] with every head."""
    M, K = o.shape
    N = w.shape[1]
    c = torch.empty(M, N, dtype=torch.float32, device=o.device)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    kernel[grid](o, w, c, M, N, K, o.stride(0), o.stride(1), w.stride(0), w.stride(1), c.stride(0), c.stride(1),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return c
