# An index assigned in both arms of a constexpr `if` leaves the `if` as its
# start when both arms are `tl.arange(0, B)` plus scalars with the same `B`,
# in any order and grouping, widened to int64 or not (Unsloth's
# LONG_INDEXING: `offsets = block_idx.to(tl.int64) * BLOCK + tl.arange(0,
# BLOCK).to(tl.int64)` in one arm, the int32 form in the other); the rows are
# `[start, start + B)` with the start chosen in the kernel. Arms whose blocks
# differ in size are no block of one size: refused.
# RUN: overlap-opt %s --kernel long_indexing --plan 'all-gather{tensor=e dim=0 size=n_elements world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=LONG
# RUN: overlap-opt %s --kernel shifted --plan 'all-gather{tensor=x_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=SHIFT
# RUN: overlap-opt %s --kernel long_indexing -t triton | filecheck %s --check-prefix=EMIT
# RUN: not overlap-opt %s --kernel two_sizes --plan 'all-gather{tensor=x_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=SIZES
import triton
import triton.language as tl


@triton.jit
def long_indexing(e, g, h, n_elements, BLOCK_SIZE: tl.constexpr, LONG_INDEXING: tl.constexpr):
    block_idx = tl.program_id(0)
    if LONG_INDEXING:
        offsets = block_idx.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE).to(tl.int64)
        n_elements = tl.cast(n_elements, tl.int64)
    else:
        offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    e_row = tl.load(e + offsets, mask=mask, other=0).to(tl.float32)
    g_row = tl.load(g + offsets, mask=mask, other=0)
    tl.store(h + offsets, (e_row * tl.sigmoid(e_row)).to(g_row.dtype) * g_row, mask=mask)


@triton.jit
def shifted(x_ptr, y_ptr, M, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, SKIP_FIRST: tl.constexpr):
    pid = tl.program_id(0)
    if SKIP_FIRST:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M) + 1
    else:
        rows = tl.arange(0, BLOCK_M) + pid * BLOCK_M
    cols = tl.arange(0, BLOCK_N)
    mask = rows[:, None] < M
    v = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask)
    tl.store(y_ptr + rows[:, None] * stride + cols[None, :], v, mask=mask)


@triton.jit
def two_sizes(x_ptr, y_ptr, M, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, WIDE: tl.constexpr):
    pid = tl.program_id(0)
    if WIDE:
        rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    else:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, 16)
    v = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=rows[:, None] < M)
    tl.store(y_ptr + rows[:, None] * stride + cols[None, :], v, mask=rows[:, None] < M)

# LONG: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "e", dim = 0 : i64, role = "read", lo = "?", extent = "BLOCK_SIZE"
# SHIFT: %v = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "?", extent = "BLOCK_M"
# EMIT:      if LONG_INDEXING:
# EMIT:          offsets_start, n_elements = tmp.to(tl.int64), n_elements_1
# EMIT:      else:
# EMIT:          offsets_start = tmp
# EMIT-NEXT: offsets = offsets_start + tl.arange(0, BLOCK_SIZE)
# SIZES: both-arms-index.py:51: 'tile.load': cannot bound the access of 'x_ptr' along dim 0: the index is not 'scalar + tl.arange(0, BLOCK)' (found scf.if)
