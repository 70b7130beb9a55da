"""RMSNorm backward in the style of Liger-Kernel: each program takes a block
of `rows_per_program` rows (`row_end = min(...)` clamps the last block),
walks them with `for row_idx in range(row_start, row_end)` and rebuilds each
row's pointers as `ptr + row_idx * row_stride`; dX is written per row from
the cached inverse RMS, and the program's share of dW is accumulated in fp32
and stored as one partial row at `dW_ptr + row_block_id * dW_row_stride`
(the host sums the partial rows)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_backward_kernel(
    dY_ptr,
    dY_row_stride,
    dX_ptr,
    dX_row_stride,
    X_ptr,
    X_row_stride,
    W_ptr,
    RSTD_ptr,
    dW_ptr,
    dW_row_stride,
    n_rows,
    n_cols,
    rows_per_program,
    BLOCK_SIZE: tl.constexpr,
):
    """dx = rstd * (dy * w - (1 / N) * rstd^2 * sum(dy * w * x) * x); dw = sum over rows of dy * x * rstd."""
    row_block_id = tl.program_id(0).to(tl.int64)
    row_start = row_block_id * rows_per_program
    row_end = min((row_block_id + 1) * rows_per_program, n_rows)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    dW_row = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0.0).to(tl.float32)

    for row_idx in range(row_start, row_end):
        dy_base = dY_ptr + row_idx * dY_row_stride
        dx_base = dX_ptr + row_idx * dX_row_stride
        x_base = X_ptr + row_idx * X_row_stride

        dY_row = tl.load(dy_base + col_offsets, mask=mask, other=0.0).to(tl.float32)
        X_row = tl.load(x_base + col_offsets, mask=mask, other=0.0).to(tl.float32)
        rstd_row = tl.load(RSTD_ptr + row_idx)

        m = dY_row * W_row
        dX_row = rstd_row * m
        dX_row += rstd_row * (-(1 / n_cols) * rstd_row * rstd_row * tl.sum(m * X_row, axis=0) * X_row)
        dW_row += dY_row * (X_row * rstd_row)

        tl.store(dx_base + col_offsets, dX_row, mask=mask)

    tl.store(dW_ptr + row_block_id * dW_row_stride + col_offsets, dW_row, mask=mask)


ROWS_PER_PROGRAM = 3


def _rstd(x: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    return torch.rsqrt(x.pow(2).mean(dim=1) + eps)


def _launch(kernel, dy, x, w, rstd, dx, dw):
    n_rows, n_cols = x.shape
    kernel[(dw.shape[0],)](dy, dy.stride(0), dx, dx.stride(0), x, x.stride(0), w, rstd, dw, dw.stride(0),
                           n_rows, n_cols, ROWS_PER_PROGRAM, BLOCK_SIZE=triton.next_power_of_2(n_cols))


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    n_rows, n_cols = 11, 72
    programs = triton.cdiv(n_rows, ROWS_PER_PROGRAM)
    dy = torch.randn(n_rows, n_cols, generator=g)
    x = torch.randn(n_rows, n_cols, generator=g)
    w = torch.rand(n_cols, generator=g) + 0.5
    rstd = _rstd(x)
    dx = torch.empty(n_rows, n_cols)
    dw = torch.empty(programs, n_cols)
    return {
        "kernel": "_rms_norm_backward_kernel",
        "grid": (programs,),
        "args": [dy, dy.stride(0), dx, dx.stride(0), x, x.stride(0), w, rstd, dw, dw.stride(0),
                 n_rows, n_cols, ROWS_PER_PROGRAM],
        "kwargs": {"BLOCK_SIZE": 128},
        "outputs": [2, 8],
        "atol": 1e-4,
        "rtol": 1e-4,
    }


def reference(case: dict) -> list:
    dy, _, _, _, x, _, w, rstd = case["args"][:8]
    n_rows = x.shape[0]
    xr = x.clone().requires_grad_(True)
    wr = w.clone().requires_grad_(True)
    y = xr * torch.rsqrt(xr.pow(2).mean(dim=1, keepdim=True) + 1e-6) * wr
    y.backward(dy)
    # dW per program: the rows of each block of ROWS_PER_PROGRAM
    xhat = x * rstd[:, None]
    parts = [(dy * xhat)[i:i + ROWS_PER_PROGRAM].sum(dim=0) for i in range(0, n_rows, ROWS_PER_PROGRAM)]
    return [xr.grad, torch.stack(parts)]


# --- workload: all-gather X's rows (sequence parallel: each rank holds its
# tokens of the norm's input; the upstream gradient and the inverse RMS the
# forward cached are every rank's) -------------------------------------------

KERNEL = _rms_norm_backward_kernel
PLANS = ["all-gather{tensor=X_ptr dim=0 size=n_rows}"]
COLLECTIVES = {"X_ptr": "x"}
ROWS, COLS = 13, 72


def _shard(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(ROWS, world, rank)
    return torch.randn(rows, COLS, generator=g)


def make_inputs(rank, world, seed):
    gs = torch.Generator().manual_seed(seed * 1000 + 999)
    rstd = _rstd(torch.cat([_shard(r, world, seed) for r in range(world)]))
    return {"x": _shard(rank, world, seed), "dy": torch.randn(ROWS, COLS, generator=gs),
            "w": torch.rand(COLS, generator=gs) + 0.5, "rstd": rstd}


def launch(kernel, x, dy, w, rstd):
    dx = torch.empty_like(dy)
    dw = torch.empty(triton.cdiv(ROWS, ROWS_PER_PROGRAM), COLS, device=dy.device)
    _launch(kernel, dy, x, w, rstd, dx, dw)
    return torch.cat([dx, dw])
