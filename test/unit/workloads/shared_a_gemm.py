"""All-gather of A's rows into the library's shared-A GEMM
(kernels/gemm_shared_a.py): one launch multiplies the gathered A by a
Q, a K and a V weight of different widths, stored N x K as nn.Linear
keeps them (``B_NK``: the kernel reads their transposes), or with
``B_NK = False`` stored K x N. Widths that are not a multiple
of the block leave partial column tiles in every B's range."""

import torch
import triton

from syncopate.kernels.gemm_shared_a import gemm_shared_a_kernel
from syncopate.runtime.workload import shard_bounds

M_GLOBAL, K_DIM = 40, 32
WIDTHS = (20, 12, 8)  # Q, K, V
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16
B_NK = True  # the weights' layout (a test sets False)

KERNEL = gemm_shared_a_kernel
PLANS = ["all-gather{tensor=a_ptr dim=0}"]
COLLECTIVES = {"a_ptr": "a"}


def make_inputs(rank, world, seed):
    """Rank's shard of A's rows and the three weights (the same on every rank)."""
    _, rows = shard_bounds(M_GLOBAL, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    a = torch.randn(rows, K_DIM, generator=g)
    gw = torch.Generator().manual_seed(seed * 1000 + 999)
    wq, wk, wv = (torch.randn(n, K_DIM, generator=gw) for n in WIDTHS)
    return {"a": a, "wq": wq, "wk": wk, "wv": wv}


def launch(kernel, a, wq, wk, wv):
    """[A @ Wq^T | A @ Wk^T | A @ Wv^T] with A the full (gathered) M x K matrix."""
    M, K = a.shape
    bs = [w.t() if B_NK else w.t().contiguous() for w in (wq, wk, wv)]
    cs = [torch.empty(M, b.shape[1], dtype=a.dtype, device=a.device) for b in bs]
    grid = (triton.cdiv(M, BLOCK_M), sum(triton.cdiv(b.shape[1], BLOCK_N) for b in bs))
    kernel[grid](a, *bs, *cs, M, *(b.shape[1] for b in bs), K, a.stride(0), a.stride(1), B_NK=B_NK,
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return torch.cat(cs, dim=1)
