"""RMSNorm forward, one row per program, in the style of Liger-Kernel:
pointers moved to the row with `ptr += row_idx * row_stride`, the inverse
RMS cached per row, fp32 math cast back to the input's dtype."""

import torch
import triton
import triton.language as tl


@triton.jit
def rms_norm_forward(Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, RSTD_ptr, n_rows, n_cols, eps,
                     BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    Y_ptr += row_idx * Y_row_stride
    X_ptr += row_idx * X_row_stride
    RSTD_ptr += row_idx

    X_row = tl.load(X_ptr + col_offsets, mask=mask, other=0)
    X_row_dtype = X_row.dtype
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0)
    X_row = X_row.to(tl.float32)
    mean_square = tl.sum(X_row * X_row, axis=0) / n_cols
    rstd = tl.rsqrt(mean_square + eps)
    tl.store(RSTD_ptr, rstd)
    Y_row = (X_row * rstd).to(X_row_dtype) * W_row
    tl.store(Y_ptr + col_offsets, Y_row, mask=mask)


def _launch(kernel, x, w, y, rstd):
    n_rows, n_cols = x.shape
    kernel[(n_rows,)](y, y.stride(0), x, x.stride(0), w, rstd, n_rows, n_cols, 1e-6,
                      BLOCK_SIZE=triton.next_power_of_2(n_cols))


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    n_rows, n_cols = 11, 96
    x = torch.randn(n_rows, n_cols, generator=g)
    w = torch.rand(n_cols, generator=g) + 0.5
    y, rstd = torch.empty(n_rows, n_cols), torch.empty(n_rows)
    return {
        "kernel": "rms_norm_forward",
        "grid": (n_rows,),
        "args": [y, y.stride(0), x, x.stride(0), w, rstd, n_rows, n_cols, 1e-6],
        "kwargs": {"BLOCK_SIZE": 128},
        "outputs": [0, 5],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    y, _, x, _, w, _, _, _, eps = case["args"]
    rstd = torch.rsqrt((x * x).mean(dim=1) + eps)
    return [x * rstd[:, None] * w, rstd]


# --- workload: all-gather X's rows (sequence-parallel input of a norm) -----

KERNEL = rms_norm_forward
PLANS = ["all-gather{tensor=X_ptr dim=0 size=n_rows}"]
COLLECTIVES = {"X_ptr": "x"}
ROWS, COLS = 11, 96


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(ROWS, world, rank)
    gw = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"x": torch.randn(rows, COLS, generator=g), "w": torch.rand(COLS, generator=gw) + 0.5}


def launch(kernel, x, w):
    y = torch.empty_like(x)
    rstd = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
    _launch(kernel, x, w, y, rstd)
    return y
