# A row-wise kernel launched with `grid = (x.shape[0],)` has no row-count
# parameter: a plan whose extent names no kernel parameter (the default
# size=M, or any other name) reads it from the tensor's shape at launch, so
# the analysis accepts its symbols. A symbol that is neither a scalar
# parameter nor such an extent (an expression over one, a pointer's name) is
# refused.
# RUN: overlap-opt %s --plan 'all-gather{tensor=X world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=X world=3 size=rows}' -p chunk-dependency-analysis | filecheck %s --check-prefix=NAMED
# RUN: not overlap-opt %s --plan 'all-gather{tensor=X world=2 size="2*R"}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=EXPR
# RUN: not overlap-opt %s --plan 'all-gather{tensor=X world=2 size=Y}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=POINTER
import triton
import triton.language as tl


@triton.jit
def row_scale(X, Y, stride, N_COLS, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < N_COLS, other=0.0)
    tl.store(Y + cols, x * 2.0, mask=cols < N_COLS)

# CHECK:      tile.load {{.*}}chunk.access = {plan = @ag, tensor = "X", dim = 0 : i64, role = "read", lo = "pid0", extent = "1"
# CHECK:      chunk.tensor "X" -> "X" shape ["M", "D1"] strides ["stride", "stride_X_1"]
# CHECK-NEXT: chunk.chunk id 0 "X" dim 0 offset 0 size "M/2" src 0 dst 0 step 0
# CHECK-NEXT: chunk.chunk id 1 "X" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0

# NAMED:      chunk.tensor "X" -> "X" shape ["rows", "D1"]
# NAMED:      chunk.chunk id 2 "X" dim 0 offset "2*(rows/3)" size "rows - 2*(rows/3)" src 2 dst 2 step 0

# EXPR: chunk-dependency-analysis: plan @ag: chunk 0 uses symbol(s) R, which are neither scalar parameters of @row_scale nor a plan tensor's extent; give the template size=<the kernel parameter holding the length of dim 0>, or size=<a name that is no parameter> to read the length from the launched tensor's shape (scalar parameters: BLOCK, N_COLS, stride)
# POINTER: chunk-dependency-analysis: plan @ag: chunk 0 uses symbol(s) Y, which are neither scalar parameters of @row_scale nor a plan tensor's extent
