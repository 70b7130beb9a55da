"""Per-column affine map `out = x * weight + bias` over `[M, N]` in the
pointwise 2-D style of FlagGems: the program ids are read through small jit
helpers that forward a constexpr axis to `tl.program_id` /
`tl.num_programs` (the way FlagGems' language-extension module spells
`tle.program_id(0)`), one BLOCK_M row tile per program along axis 0 while
the programs of axis 1 stride over the column tiles, an int64 row offset,
per-dim masks combined with `[:, None] & [None, :]`, and fp32 math cast
back to the output's element type."""

import torch
import triton
import triton.language as tl


@triton.jit
def program_id(axis: tl.constexpr):
    return tl.program_id(axis)


@triton.jit
def num_programs(axis: tl.constexpr):
    return tl.num_programs(axis)


@triton.jit
def affine_kernel(
    X, W, B, Out, M, N, stride_xm, stride_om,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    pid_m = program_id(0)
    pid_n = program_id(axis=1)
    n_tiles_n = num_programs(1)
    row_off = pid_m.to(tl.int64) * BLOCK_M
    rows = row_off + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    for tile_n in range(pid_n, tl.cdiv(N, BLOCK_N), n_tiles_n):
        cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
        col_mask = cols < N
        mask = row_mask[:, None] & col_mask[None, :]
        x = tl.load(X + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        w = tl.load(W + cols, mask=col_mask, other=0.0).to(tl.float32)
        b = tl.load(B + cols, mask=col_mask, other=0.0).to(tl.float32)
        y = x * w[None, :] + b[None, :]
        tl.store(Out + rows[:, None] * stride_om + cols[None, :], y.to(Out.dtype.element_ty), mask=mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    m, n = 45, 72
    x = torch.randn(m, n, generator=g)
    w = torch.randn(n, generator=g)
    b = torch.randn(n, generator=g)
    out = torch.empty(m, n)
    block_m, block_n = 8, 16
    # fewer column programs than column tiles: each walks several
    return {
        "kernel": "affine_kernel",
        "grid": (triton.cdiv(m, block_m), 2),
        "args": [x, w, b, out, m, n, x.stride(0), out.stride(0)],
        "kwargs": {"BLOCK_M": block_m, "BLOCK_N": block_n},
        "outputs": [3],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    x, w, b = case["args"][:3]
    return [x * w[None, :] + b[None, :]]


FUSE = ("all-gather{tensor=X dim=0 size=M}", 0, 0)
