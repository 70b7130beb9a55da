"""MoE combine: the all-to-all that brings the experts' outputs back to the
ranks their tokens came from, and the top-k weighted sum that gives each
token its layer output. With ``a2a_grouped_gemm.py`` (dispatch + the expert
GEMM) it is the MoE layer: dispatch all-to-all, expert GEMMs, combine
all-to-all (the paper's GEMM-A2A-GEMM workload; bench workload ``moe-layer``).

Rank s routes each of its T_s tokens to TOPK experts; its dispatch send buffer
held counts[s][d][e] rows for rank d's local expert e, by destination then
expert, and token t's k-th choice was row idx[t, k] of it. The expert rank d
holds those rows' outputs, by source then expert (its dispatch receive
buffer's order), so its combine send buffer is that, the block for source s
first: the combine's splits are the dispatch's transposed. After it, rank
s's receive buffer has the dispatch send buffer's layout again, and

    out[t] = sum_k gate[t, k] * y[idx[t, k]]

Plan: ``all-to-all{tensor=y_ptr dim=0 splits=...}``. The kernel reads rows
through the loaded ``idx`` (a scalar row per load: it waits for that row's
chunk, whichever source it came from).
"""

import torch
import triton

from syncopate.kernels.moe_combine import moe_combine_kernel


# --- workload convention (see syncopate/runtime/workload.py) -----------------

E_LOCAL, TOPK, N_DIM = 2, 2, 40
BLOCK_N = 16

KERNEL = moe_combine_kernel
COLLECTIVES = {"y_ptr": "y"}


def token_counts(world):
    """counts[s][d][e]: rows rank s dispatched to rank d's local expert e
    (each rank's total a multiple of TOPK: TOPK rows per token)."""
    counts = [[[1 + (5 * s + 3 * d + 7 * e) % 6 for e in range(E_LOCAL)] for d in range(world)]
              for s in range(world)]
    for s in range(world):
        counts[s][s][0] += -sum(map(sum, counts[s])) % TOPK
    return counts


def dispatch_splits(world):
    counts = token_counts(world)
    return [[sum(counts[s][d]) for d in range(world)] for s in range(world)]


def PLANS(world):
    """The combine sends back what the dispatch sent: splits[s][d] = dispatch[d][s]."""
    back = dispatch_splits(world)
    flat = ",".join(str(back[d][s]) for s in range(world) for d in range(world))
    return [f"all-to-all{{tensor=y_ptr dim=0 splits={flat}}}"]


def routing(rank, world, seed):
    """Rank's (idx, gate): the dispatch rows of each token's TOPK choices,
    and their weights (a softmax over the choices)."""
    rows = sum(dispatch_splits(world)[rank])
    g = torch.Generator().manual_seed(seed * 1000 + 500 + rank)
    idx = torch.randperm(rows, generator=g).to(torch.int32).view(rows // TOPK, TOPK)
    gate = torch.softmax(torch.randn(rows // TOPK, TOPK, generator=g), dim=1)
    return idx, gate


def make_inputs(rank, world, seed):
    """Rank's expert outputs for the rows it received in the dispatch (by
    source, then expert: the combine's send buffer) and its own tokens'
    routing."""
    received = sum(dispatch_splits(world)[s][rank] for s in range(world))
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    y = torch.randn(received, N_DIM, generator=g, dtype=torch.float32)
    idx, gate = routing(rank, world, seed)
    return {"y": y, "idx": idx, "gate": gate}


def launch(kernel, y, idx, gate):
    """out[t] = sum_k gate[t, k] * y[idx[t, k]] over the combined rows ``y``."""
    tokens, topk = idx.shape
    n = y.shape[1]
    out = torch.empty(tokens, n, dtype=torch.float32, device=y.device)
    grid = (tokens, triton.cdiv(n, BLOCK_N))
    kernel[grid](y, idx, gate, out, n, y.stride(0), y.stride(1), out.stride(0), out.stride(1),
                 TOPK=topk, BLOCK_N=BLOCK_N)
    return out
