"""Attention backward for dK and dV in the style of Triton's fused-attention
tutorial (one head): a program owns a block of keys and walks the queries in
blocks of BLOCK_M1 = BLOCK_N1 // BLK_SLICE_FACTOR (an annotated local
constexpr, as is RCP_LN2), advancing `qT_ptrs` and `do_ptrs` each step.
Probabilities are rebuilt from the forward's log-sum-exp (stored in log2
units) and the row sums D = rowsum(dO * O) of the preprocessing step."""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def attn_bwd_dkdv_kernel(Q, K, V, DO, M, D, DK, DV, sm_scale, N_CTX, stride_tok, stride_d,
                         HEAD_DIM: tl.constexpr, BLOCK_N1: tl.constexpr, BLK_SLICE_FACTOR: tl.constexpr):
    BLOCK_M1: tl.constexpr = BLOCK_N1 // BLK_SLICE_FACTOR
    RCP_LN2: tl.constexpr = 1.4426950408889634
    start_n = tl.program_id(0) * BLOCK_N1
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    offs_k = tl.arange(0, HEAD_DIM)
    k = tl.load(K + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d)
    v = tl.load(V + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d)
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    offs_m = tl.arange(0, BLOCK_M1)
    qT_ptrs = Q + offs_m[None, :] * stride_tok + offs_k[:, None] * stride_d
    do_ptrs = DO + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d
    curr_m = 0
    num_steps = N_CTX // BLOCK_M1
    for blk in range(num_steps):
        qT = tl.load(qT_ptrs)
        offs_m = curr_m + tl.arange(0, BLOCK_M1)
        m = tl.load(M + offs_m)
        qkT = tl.dot(k, qT) * (sm_scale * RCP_LN2)
        pT = tl.math.exp2(qkT - m[None, :])
        do = tl.load(do_ptrs)
        dv += tl.dot(pT, do)
        Di = tl.load(D + offs_m)
        dpT = tl.dot(v, tl.trans(do))
        dsT = pT * (dpT - Di[None, :])
        dk += tl.dot(dsT, tl.trans(qT))
        curr_m += BLOCK_M1
        qT_ptrs += BLOCK_M1 * stride_tok
        do_ptrs += BLOCK_M1 * stride_tok
    dk *= sm_scale
    tl.store(DV + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d, dv)
    tl.store(DK + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d, dk)


HEAD_DIM, BLOCK_N1, SLICE = 16, 32, 2  # tl.dot needs every dim >= 16 on GPUs


def _forward_stats(q, k, v, do, sm_scale):
    """(log-sum-exp of each query row in log2 units, rowsum(dO * O))."""
    s = (q @ k.T) * sm_scale
    o = torch.softmax(s, dim=1) @ v
    return torch.logsumexp(s, dim=1) / math.log(2.0), (do * o).sum(dim=1)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    n_ctx = 64
    q, k, v, do = (torch.randn(n_ctx, HEAD_DIM, generator=g) for _ in range(4))
    sm_scale = 0.5
    m, d = _forward_stats(q, k, v, do, sm_scale)
    dk, dv = torch.empty(n_ctx, HEAD_DIM), torch.empty(n_ctx, HEAD_DIM)
    return {
        "kernel": "attn_bwd_dkdv_kernel",
        "grid": (n_ctx // BLOCK_N1,),
        "args": [q, k, v, do, m, d, dk, dv, sm_scale, n_ctx, q.stride(0), q.stride(1)],
        "kwargs": {"HEAD_DIM": HEAD_DIM, "BLOCK_N1": BLOCK_N1, "BLK_SLICE_FACTOR": SLICE},
        "outputs": [6, 7],
        "atol": 1e-3,
        "rtol": 1e-3,
    }


def reference(case: dict) -> list:
    q, k, v, do = (t.clone() for t in case["args"][:4])
    sm_scale = case["args"][8]
    k.requires_grad_(True)
    v.requires_grad_(True)
    o = torch.softmax((q @ k.T) * sm_scale, dim=1) @ v
    o.backward(do)
    return [k.grad, v.grad]


# --- workload: all-gather Q along the sequence into the dK/dV pass ----------

KERNEL = attn_bwd_dkdv_kernel
N_CTX = 96  # divisible by W = 2, 3, 4 and each shard by BLOCK_N1 // BLK_SLICE_FACTOR
PLANS = ["all-gather{tensor=Q dim=0 size=N_CTX}"]
COLLECTIVES = {"Q": "q"}


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + 999)
    q, k, v, do = (torch.randn(N_CTX, HEAD_DIM, generator=g) for _ in range(4))  # every rank draws all of q
    m, d = _forward_stats(q, k, v, do, 0.5)
    start, rows = shard_bounds(N_CTX, world, rank)
    return {"q": q[start:start + rows].clone(), "k": k, "v": v, "do": do, "m": m, "d": d}


def launch(kernel, q, k, v, do, m, d):
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    kernel[(N_CTX // BLOCK_N1,)](q, k, v, do, m, d, dk, dv, 0.5, N_CTX, q.stride(0), q.stride(1),
                                HEAD_DIM=HEAD_DIM, BLOCK_N1=BLOCK_N1, BLK_SLICE_FACTOR=SLICE)
    return torch.cat([dk, dv])
