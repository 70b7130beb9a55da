"""MoE: all-to-all token dispatch + grouped GEMM.

Every rank hosts E_LOCAL experts. Rank s sends counts[s][d][e] tokens to rank d
for d's local expert e; its send buffer ``x`` holds the rows for rank 0 first
(within a destination, sorted by expert), then rank 1, ... After the
all-to-all, a rank's receive buffer is the concatenation over source ranks of
the block each sent to it, and the grouped GEMM multiplies every
(source, expert) segment by that expert's weight: out[rows] = x[rows] @ w[e].

Plan: ``all-to-all{tensor=x_ptr dim=0 splits=...}`` with the W*W split matrix
(row-major [src][dst]).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def grouped_gemm_kernel(x_ptr, w_ptr, out_ptr, tile_row_start_ptr, tile_rows_ptr, tile_expert_ptr, M, N, K,
                        stride_xm, stride_xk, stride_we, stride_wk, stride_wn, stride_om, stride_on,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_t = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    row_start = tl.load(tile_row_start_ptr + pid_t)
    nrows = tl.load(tile_rows_ptr + pid_t)
    expert = tl.load(tile_expert_ptr + pid_t)
    rows = row_start + tl.arange(0, BLOCK_M)
    row_ok = (tl.arange(0, BLOCK_M) < nrows) & (rows < M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + rows[:, None] * stride_xm + ks[None, :] * stride_xk,
                    mask=row_ok[:, None] & (ks[None, :] < K), other=0.0)
        w = tl.load(w_ptr + expert * stride_we + ks[:, None] * stride_wk + cols[None, :] * stride_wn,
                    mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc += tl.dot(x, w)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, acc.to(out_ptr.dtype.element_ty),
             mask=row_ok[:, None] & (cols[None, :] < N))


# --- workload convention (see syncopate/runtime/workload.py) -----------------

E_LOCAL = 2
K_DIM, N_DIM = 24, 20
BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16

KERNEL = grouped_gemm_kernel
COLLECTIVES = {"x_ptr": "x"}


def token_counts(world):
    """counts[s][d][e]: tokens rank s sends to rank d for d's local expert e."""
    return [[[1 + (5 * s + 3 * d + 7 * e) % 6 for e in range(E_LOCAL)] for d in range(world)]
            for s in range(world)]


def splits(world):
    """splits[s][d]: rows rank s sends to rank d."""
    counts = token_counts(world)
    return [[sum(counts[s][d]) for d in range(world)] for s in range(world)]


def PLANS(world):
    flat = ",".join(str(n) for row in splits(world) for n in row)
    return [f"all-to-all{{tensor=x_ptr dim=0 splits={flat}}}"]


def make_inputs(rank, world, seed):
    """Rank's send buffer ``x``, what it will receive per (source, local
    expert) ``counts`` [W, E_LOCAL] (int32), and its experts' weights ``w``
    [E_LOCAL, K, N]."""
    counts = token_counts(world)
    rows_out = sum(sum(counts[rank][d]) for d in range(world))
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    x = torch.randn(rows_out, K_DIM, generator=g, dtype=torch.float32)
    w = torch.randn(E_LOCAL, K_DIM, N_DIM, generator=g, dtype=torch.float32)
    recv = torch.tensor([[counts[s][rank][e] for e in range(E_LOCAL)] for s in range(world)], dtype=torch.int32)
    return {"x": x, "counts": recv, "w": w}


def launch(kernel, x, counts, w):
    """Grouped GEMM over the receive buffer ``x`` (segments ordered by source,
    then expert, sizes ``counts``): out[rows of (s, e)] = x[rows] @ w[e]."""
    M, K = x.shape
    N = w.shape[2]
    starts, sizes, experts = [], [], []
    row = 0
    for per_src in counts.tolist():
        for e, n in enumerate(per_src):
            for t0 in range(0, n, BLOCK_M):
                starts.append(row + t0)
                sizes.append(min(BLOCK_M, n - t0))
                experts.append(e)
            row += n
    assert row == M, f"receive buffer has {M} rows, counts say {row}"
    tile_row_start = torch.tensor(starts, dtype=torch.int32, device=x.device)
    tile_rows = torch.tensor(sizes, dtype=torch.int32, device=x.device)
    tile_expert = torch.tensor(experts, dtype=torch.int32, device=x.device)
    out = torch.empty(M, N, dtype=torch.float32, device=x.device)
    grid = (len(starts), triton.cdiv(N, BLOCK_N))
    kernel[grid](x, w, out, tile_row_start, tile_rows, tile_expert, M, N, K,
                 x.stride(0), x.stride(1), w.stride(0), w.stride(1), w.stride(2), out.stride(0), out.stride(1),
                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out
