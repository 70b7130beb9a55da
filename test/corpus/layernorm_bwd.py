"""LayerNorm backward in the style of Triton's layer-norm tutorial: one
program per row computes dx and adds its row's share of dw and db into one
of GROUP_SIZE_M partial buffers, guarded by a spin lock taken with
`tl.atomic_cas` (the first program of a group stores, the next ones add);
a second kernel sums the partial buffers column by column."""

import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_bwd_dx_kernel(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                             GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    # rows share GROUP_SIZE_M partial buffers: lock i guards buffer i, its count says whether it holds data
    group = row % GROUP_SIZE_M
    Lock += group
    Count = Lock + GROUP_SIZE_M
    DW = DW + group * N + cols
    DB = DB + group * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = dy.to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def layer_norm_bwd_dwdb_kernel(DW, DB, FINAL_DW, FINAL_DB, M, N,
                               BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.0)
        db += tl.load(DB + offs, mask=mask, other=0.0)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


GROUP_SIZE_M = 4
BLOCK_SIZE_N = 64


def _stats(x: torch.Tensor, eps: float = 1e-5) -> tuple[torch.Tensor, torch.Tensor]:
    mean = x.mean(dim=1)
    rstd = 1.0 / torch.sqrt(x.var(dim=1, unbiased=False) + eps)
    return mean, rstd


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    M, N = 10, 48
    x = torch.randn(M, N, generator=g)
    dy = torch.randn(M, N, generator=g)
    w = torch.rand(N, generator=g) + 0.5
    mean, rstd = _stats(x)
    dx = torch.empty(M, N)
    dw = torch.empty(GROUP_SIZE_M, N)
    db = torch.empty(GROUP_SIZE_M, N)
    locks = torch.zeros(2 * GROUP_SIZE_M, dtype=torch.int32)
    return {
        "kernel": "layer_norm_bwd_dx_kernel",
        "grid": (M,),
        "args": [dx, dy, dw, db, x, w, mean, rstd, locks, x.stride(0), N],
        "kwargs": {"GROUP_SIZE_M": GROUP_SIZE_M, "BLOCK_SIZE_N": BLOCK_SIZE_N},
        "outputs": [0, 2, 3],
        "scratch": [8],  # the locks and counts start at zero
        "atol": 1e-4,
        "rtol": 1e-4,
    }


def reference(case: dict) -> list:
    _, dy, _, _, x, w, mean, rstd, _, _, N = case["args"]
    xhat = (x - mean[:, None]) * rstd[:, None]
    wdy = w * dy
    c1 = (xhat * wdy).sum(dim=1, keepdim=True) / N
    c2 = wdy.sum(dim=1, keepdim=True) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
    groups = torch.arange(x.shape[0]) % GROUP_SIZE_M
    dw = torch.stack([(dy * xhat)[groups == i].sum(dim=0) for i in range(GROUP_SIZE_M)])
    db = torch.stack([dy[groups == i].sum(dim=0) for i in range(GROUP_SIZE_M)])
    return [dx, dw, db]


# --- workload: all-gather X's rows into the backward; the output is dx
# followed by the final dw and db (the lock-guarded partial sums, reduced) --

KERNEL = layer_norm_bwd_dx_kernel
ROWS, COLS = 12, 48
# No size=: the kernel has no row-count parameter, so the plan reads the
# row count from X's shape at launch.
PLANS = ["all-gather{tensor=X dim=0}"]
COLLECTIVES = {"X": "x"}


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + 999)
    x = torch.randn(ROWS, COLS, generator=g)  # every rank draws the whole x, keeps its rows
    mean, rstd = _stats(x)
    start, rows = shard_bounds(ROWS, world, rank)
    return {"x": x[start:start + rows].clone(), "dy": torch.randn(ROWS, COLS, generator=g),
            "w": torch.rand(COLS, generator=g) + 0.5, "mean": mean, "rstd": rstd}


def launch(kernel, x, dy, w, mean, rstd):
    M, N = dy.shape
    dx = torch.empty_like(dy)
    dw, db = dy.new_empty(GROUP_SIZE_M, N), dy.new_empty(GROUP_SIZE_M, N)
    locks = torch.zeros(2 * GROUP_SIZE_M, dtype=torch.int32, device=dy.device)
    kernel[(M,)](dx, dy, dw, db, x, w, mean, rstd, locks, x.stride(0), N,
                 GROUP_SIZE_M=GROUP_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N)
    final_dw, final_db = dy.new_empty(N), dy.new_empty(N)
    layer_norm_bwd_dwdb_kernel[(triton.cdiv(N, 32),)](dw, db, final_dw, final_db, GROUP_SIZE_M, N,
                                                      BLOCK_SIZE_M=4, BLOCK_SIZE_N=32)
    return torch.cat([dx.flatten(), final_dw, final_db])
