# A constexpr row stride inside a combined offset (`offsets = row_idx *
# Q_row_stride + col_offsets` with `Q_row_stride: tl.constexpr`, Unsloth's
# RoPE and norm kernels), with the plan naming it (stride=Q_row_stride), is
# one row per program, as `Q += row_idx * Q_row_stride` is; the row may also
# be widened in one arm of a constexpr `if` (LONG_INDEXING), which leaves
# its value. Unnamed, the sum is one flat index of a 1-D tensor (the launch
# checks the tensor is one); named but another parameter, still refused.
# RUN: overlap-opt %s --kernel rows --plan 'all-gather{tensor=Q dim=0 world=2 stride=Q_row_stride}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --kernel long_rows --plan 'all-gather{tensor=Q dim=0 world=2 stride=Q_row_stride}' -p chunk-dependency-analysis | filecheck %s --check-prefix=LONG
# RUN: overlap-opt %s --kernel rows --plan 'all-gather{tensor=Q dim=0 world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=FLAT
# RUN: not overlap-opt %s --kernel rows --plan 'all-gather{tensor=Q dim=0 world=2 stride=BLOCK_SIZE}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=OTHER
import triton
import triton.language as tl


@triton.jit
def rows(Q, Q_row_stride: tl.constexpr, O, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    offsets = row_idx * Q_row_stride + col_offsets
    q = tl.load(Q + offsets, mask=col_offsets < n_cols, other=0)
    tl.store(O + offsets, q * 2, mask=col_offsets < n_cols)


@triton.jit
def long_rows(Q, Q_row_stride: tl.constexpr, O, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr,
              LONG_INDEXING: tl.constexpr):
    row_idx = tl.program_id(0)
    if LONG_INDEXING:
        row_idx = row_idx.to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    q = tl.load(Q + (col_offsets + row_idx * Q_row_stride), mask=col_offsets < n_cols, other=0)
    tl.store(O + row_idx * Q_row_stride + col_offsets, q * 2, mask=col_offsets < n_cols)

# CHECK: %q = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "Q", dim = 0 : i64, role = "read", lo = "pid0", extent = "1"
# LONG: %q = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "Q", dim = 0 : i64, role = "read", lo = "?", extent = "1"
# FLAT: %q = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "Q", dim = 0 : i64, role = "read", lo = "(pid0 * Q_row_stride)", extent = "BLOCK_SIZE"
# OTHER: constexpr-row-stride-combined.py:21: 'tile.load': the plan's stride=BLOCK_SIZE multiplies no index of the access of 'Q'
