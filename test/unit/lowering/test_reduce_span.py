"""The epilogue reduction's helper (``syn_reduce_span``) on its own, in the
Triton interpreter: a tile gets every staged partial of its rows added, for
pieces that cover part of the tile, several peers of one piece, and tiles
past the tensor's last column; staging laid out in whole 16-element runs
takes the hinted (vector) load, any other layout the plain one, with the
same result (exact in fp32; bf16 within the interpreter's rounding)."""

import pytest
import torch
import triton
import triton.language as tl

from syncopate.lowering.device_helpers import syn_reduce_span

ROWS = 24


@triton.jit
def _tile(out, res, flags, table, n, staging, epoch_ptr, report, lo, col, nrows, ncols, stride_o,
          BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = lo + tl.arange(0, BLOCK_R)
    cols = col + tl.arange(0, BLOCK_C)
    mask = (rows < nrows)[:, None] & (cols < ncols)[None, :]
    where = rows[:, None] * stride_o + cols[None, :]
    value = tl.load(out + where, mask=mask, other=0.0)
    total = syn_reduce_span(value, flags, table, n, lo, col, staging, epoch_ptr, 0, report, BLOCK_R, BLOCK_C)
    tl.store(res + where, total, mask=mask)


# pieces (lo, hi) of the rows this rank owns and how many peers stage a partial of each
PIECES = [(0, 6, 2), (6, 16, 1), (16, 24, 1)]


def _layout(ncols: int, stride: int, first: int, gap: int) -> list[tuple[int, int, int, int]]:
    """(lo, hi, offset, stride) per piece and peer: each partial at its own offset in one staging buffer."""
    rows, at = [], first
    for lo, hi, peers in PIECES:
        for _ in range(peers):
            rows.append((lo, hi, at, stride))
            at += (hi - lo) * stride + gap
    return rows


@pytest.mark.parametrize("ncols,stride,first,gap", [(32, 48, 0, 16), (40, 41, 3, 5), (32, 48, 16, 3)],
                         ids=["aligned", "unaligned", "unaligned offset"])
@pytest.mark.parametrize("lo,col", [(0, 0), (8, 16), (16, 32)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_each_staged_partial_of_the_tiles_rows_is_added(ncols, stride, first, gap, lo, col, dtype):
    g = torch.Generator().manual_seed(ncols + lo + col)
    layout = _layout(ncols, stride, first, gap)
    staging = torch.randn(layout[-1][2] + 24 * stride, generator=g).to(dtype)
    out = torch.randn(ROWS, ncols, generator=g).to(dtype)
    flags = torch.full((len(layout),), 5, dtype=torch.int32)  # every partial arrived (epoch 5)
    table = torch.tensor([[p_lo, p_hi, i, off, st, ncols] for i, (p_lo, p_hi, off, st) in enumerate(layout)],
                         dtype=torch.int64)
    res = torch.zeros_like(out)
    _tile[(1,)](out, res, flags, table, len(layout), staging, torch.tensor([5], dtype=torch.int32),
                torch.zeros(4, dtype=torch.int32), lo, col, ROWS, ncols, ncols, BLOCK_R=16, BLOCK_C=32)

    expected = torch.zeros_like(out)
    tile_rows, tile_cols = range(lo, min(lo + 16, ROWS)), range(col, min(col + 32, ncols))
    for r in tile_rows:
        acc = out[r, col:tile_cols.stop].clone()
        for p_lo, p_hi, off, st in layout:
            if p_lo <= r < p_hi:  # one peer at a time, rounded to the tile's dtype after each add
                part = staging[off + (r - p_lo) * st + col: off + (r - p_lo) * st + tile_cols.stop]
                acc = (acc.float() + part.float()).to(dtype)
        expected[r, col:tile_cols.stop] = acc
    if dtype == torch.float32:
        assert torch.equal(res, expected)
    else:  # the interpreter's fp32 -> bf16 rounding may differ from torch's by an ulp; a missing partial would not
        torch.testing.assert_close(res.float(), expected.float(), rtol=2**-7, atol=2**-6)
