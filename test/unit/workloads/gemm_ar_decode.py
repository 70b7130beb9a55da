"""A decode-shaped GEMM + all-reduce (a row-parallel linear at a few
tokens): each program computes every one of the M <= BLOCK_M rows for one
block of columns, over the rank's slice of K, and stores them under a row
and column mask; the partials are summed over ranks. Fused with
``overlap{reduce=push}`` the kernel sums them itself. M and N are
WORKLOAD_M (default 1) and WORKLOAD_N (default 40), so a test can run other
decode shapes.
"""

import os

import torch
import triton
import triton.language as tl


@triton.jit
def decode_ar_kernel(x_ptr, w_ptr, y_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    tokens = tl.arange(0, BLOCK_M)
    outs = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    total = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        inner = start + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + tokens[:, None] * K + inner[None, :], mask=(tokens[:, None] < M) & (inner[None, :] < K),
                    other=0.0)
        w = tl.load(w_ptr + inner[:, None] * N + outs[None, :], mask=(inner[:, None] < K) & (outs[None, :] < N),
                    other=0.0)
        total = tl.dot(x, w, total)
    tl.store(y_ptr + tokens[:, None] * N + outs[None, :], total, mask=(tokens[:, None] < M) & (outs[None, :] < N))


TOKENS, HIDDEN, OUT = int(os.environ.get("WORKLOAD_M", "1")), 24, int(os.environ.get("WORKLOAD_N", "40"))
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16

KERNEL = decode_ar_kernel
PLANS = ["all-reduce{tensor=y_ptr dim=0}"]
COLLECTIVES = {"y_ptr": "out"}


def make_inputs(rank, world, seed):
    """Rank's activations (TOKENS x its HIDDEN slice) and weight slice (HIDDEN x OUT)."""
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    return {"x": torch.randn(TOKENS, HIDDEN, generator=g), "w": torch.randn(HIDDEN, OUT, generator=g)}


def launch(kernel, x, w):
    """The rank's partial y = x @ w, one program per BLOCK_N columns."""
    y = torch.empty(x.shape[0], w.shape[1], dtype=torch.float32, device=x.device)
    kernel[(triton.cdiv(w.shape[1], BLOCK_N),)](x, w, y, x.shape[0], w.shape[1], x.shape[1],
                                                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return y
