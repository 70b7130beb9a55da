# `offsets = row * row_stride + cols; x_ptr + offsets` is the same address as
# `x_ptr + row * row_stride + cols`: one row, [row, row + 1), not the
# elements [row * row_stride, row * row_stride + BLOCK) of a flat index (that
# would under-approximate the rows of a 2-D tensor).
# RUN: overlap-opt %s --kernel rows --plan 'all-gather{tensor=x_ptr dim=0 size=n_rows world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=ROWS
# Edge: a constexpr factor is no runtime stride: `pid * BLOCK + tl.arange(0, BLOCK)` stays a flat 1-D index.
# RUN: overlap-opt %s --kernel flat --plan 'all-gather{tensor=x_ptr dim=0 size=n world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=FLAT
import triton
import triton.language as tl


@triton.jit
def rows(x_ptr, y_ptr, row_stride, n_rows, n_cols: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = row * row_stride + tl.arange(0, BLOCK)
    mask = tl.arange(0, BLOCK) < n_cols
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@triton.jit
def flat(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)

# ROWS: tile.load {{.*}}lo = "pid0", extent = "1"
# ROWS: chunk.tensor "x_ptr" -> "x_ptr" shape ["n_rows", "D1"] strides ["row_stride",
# FLAT: tile.load {{.*}}lo = "(pid0 * BLOCK)", extent = "BLOCK"
