"""LayerNorm forward, one program per row, looping over the columns in blocks
(for rows wider than a block). Also writes the per-row mean and 1/std."""

import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps,
                          BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    # mean
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    # variance
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    # normalize and apply the affine transform
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    M, N = 9, 200
    x = torch.randn(M, N, generator=g) * 2.0 + 0.5
    w = torch.rand(N, generator=g) + 0.5
    b = torch.randn(N, generator=g)
    y = torch.empty(M, N)
    mean = torch.empty(M)
    rstd = torch.empty(M)
    return {
        "kernel": "layer_norm_fwd_kernel",
        "grid": (M,),
        "args": [x, y, w, b, mean, rstd, x.stride(0), N, 1e-5],
        "kwargs": {"BLOCK_SIZE": 64},
        "outputs": [1, 4, 5],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    x, _, w, b, _, _, _, N, eps = case["args"]
    y = torch.nn.functional.layer_norm(x, (N,), w, b, eps)
    mean = x.mean(dim=1)
    rstd = 1.0 / torch.sqrt(x.var(dim=1, unbiased=False) + eps)
    return [y, mean, rstd]


# --- workload: all-gather X's rows (the kernel has no row-count parameter:
# the plan gives no size= and reads it from X's shape at launch) ----------

KERNEL = layer_norm_fwd_kernel
ROWS, COLS = 12, 200
PLANS = ["all-gather{tensor=X dim=0}"]
COLLECTIVES = {"X": "x"}


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(ROWS, world, rank)
    gw = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"x": torch.randn(rows, COLS, generator=g) * 2.0 + 0.5,
            "w": torch.rand(COLS, generator=gw) + 0.5, "b": torch.randn(COLS, generator=gw)}


def launch(kernel, x, w, b):
    M, N = x.shape
    y = torch.empty_like(x)
    mean = torch.empty(M, dtype=torch.float32, device=x.device)
    rstd = torch.empty(M, dtype=torch.float32, device=x.device)
    kernel[(M,)](x, y, w, b, mean, rstd, x.stride(0), N, 1e-5, BLOCK_SIZE=64)
    return y
