"""LayerNorm forward in the style of Unsloth's (after torchtune's fp32
LayerNorm): one row per program, `Y += row_idx * Y_row_stride` and the
per-row statistics pointers moved by `r += row_idx`; the row's columns and
`eps` are constexpr parameters, `eps` made an fp32 0-d value with
`tl.full((), eps, tl.float32)`, `tl.math.rsqrt` for the inverse std, masked
lanes zeroed with `tl.where` before the variance; the mean and inverse std
are stored per row for the backward."""

import torch
import triton
import triton.language as tl


@triton.jit
def layernorm_forward(
    Y,
    Y_row_stride,
    X,
    X_row_stride,
    W,
    b,
    r,
    mu,
    n_cols: tl.constexpr,
    eps: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    Y += row_idx * Y_row_stride
    X += row_idx * X_row_stride
    r += row_idx
    mu += row_idx

    # everything in fp32, whatever the input dtype
    X_row = tl.load(X + col_offsets, mask = mask, other = 0).to(tl.float32)
    W_row = tl.load(W + col_offsets, mask = mask, other = 0).to(tl.float32)
    b_row = tl.load(b + col_offsets, mask = mask, other = 0).to(tl.float32)

    mean_X = tl.sum(X_row, axis = 0) / n_cols
    # masked lanes would contribute (0 - mean)^2: zero them
    XX = tl.where(mask, X_row - mean_X, 0)
    row_var = tl.sum(XX * XX, axis = 0) / n_cols
    eps_f32 = tl.full((), eps, tl.float32)
    inv_var = tl.math.rsqrt(row_var + eps_f32)
    tl.store(r, inv_var)
    tl.store(mu, mean_X)
    output = (XX * inv_var) * W_row + b_row
    tl.store(Y + col_offsets, output, mask = mask)


EPS = 1e-5


def _layernorm(kernel, X, W, bias):
    n_rows, n_cols = X.shape
    Y = torch.empty((n_rows, n_cols), dtype = X.dtype, device = X.device)
    r = torch.empty(n_rows, dtype = torch.float32, device = X.device)
    mu = torch.empty(n_rows, dtype = torch.float32, device = X.device)
    kernel[(n_rows,)](
        Y,
        Y.stride(0),
        X,
        X.stride(0),
        W,
        bias,
        r,
        mu,
        n_cols,
        EPS,
        BLOCK_SIZE = triton.next_power_of_2(n_cols),
    )
    return Y, r, mu


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    n_rows, n_cols = 9, 100
    x = torch.randn(n_rows, n_cols, generator = g) * 2.0 + 0.5
    w = torch.rand(n_cols, generator = g) + 0.5
    bias = torch.randn(n_cols, generator = g)
    y, r, mu = torch.empty(n_rows, n_cols), torch.empty(n_rows), torch.empty(n_rows)
    return {
        "kernel": "layernorm_forward",
        "grid": (n_rows,),
        "args": [y, y.stride(0), x, x.stride(0), w, bias, r, mu],
        "kwargs": {"n_cols": n_cols, "eps": EPS, "BLOCK_SIZE": 128},
        "outputs": [0, 6, 7],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    _, _, x, _, w, bias = case["args"][:6]
    mean = x.mean(dim = 1)
    rstd = torch.rsqrt(x.var(dim = 1, unbiased = False) + EPS)
    return [torch.nn.functional.layer_norm(x, (x.shape[1],), w, bias, EPS), rstd, mean]


# --- workload: all-gather X's rows (sequence-parallel input of the norm) ----

KERNEL = layernorm_forward
PLANS = ["all-gather{tensor=X dim=0}"]
COLLECTIVES = {"X": "x"}
ROWS, COLS = 11, 100


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(ROWS, world, rank)
    gw = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"x": torch.randn(rows, COLS, generator = g) * 2.0 + 0.5, "w": torch.rand(COLS, generator = gw) + 0.5,
            "bias": torch.randn(COLS, generator = gw)}


def launch(kernel, x, w, bias):
    return _layernorm(kernel, x, w, bias)
