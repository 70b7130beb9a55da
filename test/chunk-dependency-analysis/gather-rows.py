# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' | filecheck %s --check-prefix=BEFORE
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 dim=1 size=N}' -p chunk-dependency-analysis | filecheck %s --check-prefix=COLS
import triton
import triton.language as tl


@triton.jit
def copy_rows(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask)
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x, mask=mask)

# The template's binding guesses the parameter and stride names...
# BEFORE: chunk.tensor "x_ptr" -> "x_ptr_ptr" shape ["M", "D1"] strides ["stride_x_ptr_0", "stride_x_ptr_1"]
# BEFORE-NOT: chunk.access

# ...the analysis binds the real parameter and the stride found in the address,
# and annotates the one load of x_ptr (not the store of y_ptr, which no plan names).
# CHECK-LABEL: tile.func @copy_rows
# CHECK:       %x = tile.load %{{.*}} mask %mask : !tile.block<?x?xi1> {chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 0 : i64, invariant = 0 : i64}}
# CHECK-NOT:   chunk.access
# CHECK:       tile.store %x
# CHECK-NOT:   chunk.access
# CHECK:       chunk.plan @ag kind "all-gather" world 2 {
# CHECK-NEXT:  chunk.tensor "x_ptr" -> "x_ptr" shape ["M", "D1"] strides ["stride_xm", "stride_x_ptr_1"]
# CHECK-NEXT:  chunk.chunk id 0 "x_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset

# Split along the columns: the column index is a bare arange (lo 0) with unit stride.
# COLS:      %x = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "x_ptr", dim = 1 : i64, role = "read", lo = "0", extent = "BLOCK_N", loops = 0 : i64, invariant = 0 : i64}
# COLS:      chunk.tensor "x_ptr" -> "x_ptr" shape ["D0", "N"] strides ["stride_x_ptr_0", 1]
