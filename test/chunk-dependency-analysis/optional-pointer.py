# RUN: overlap-opt %s --plan 'all-gather{tensor=bias_ptr world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=bias_ptr world=2}' -p overlap -t triton | filecheck %s --check-prefix=EMIT
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p overlap -t triton | filecheck %s --check-prefix=OTHER
# An access under `if p is not None` (Triton drops the branch when p is passed
# None) is still an access: the same footprint, its wait inside the branch as
# for any `if`.
import triton
import triton.language as tl


@triton.jit
def add_row_bias(x_ptr, bias_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask)
    HAS_BIAS = bias_ptr is not None
    if HAS_BIAS:
        b = tl.load(bias_ptr + rows, mask=rows < M)
        x += b[:, None]
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x, mask=mask)

# CHECK:      %HAS_BIAS = tile.cmp "isnot", %bias_ptr, %{{.*}} : !tile.ptr, !tile.constexpr -> i1
# CHECK-NEXT: scf.if %HAS_BIAS
# CHECK:      %b = tile.load %{{.*}} {chunk.access = {plan = @ag, tensor = "bias_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 0 : i64, invariant = 0 : i64}}

# EMIT:      HAS_BIAS = bias_ptr is not None
# EMIT-NEXT: if HAS_BIAS:
# EMIT-NEXT:     # inserted by lower-chunk-to-tile
# EMIT-NEXT:     syn_wait_span(
# EMIT-NEXT:     b = tl.load(bias_ptr + rows, mask=rows < M)

# The gathered x_ptr is read before the test: its wait stays there, the branch
# is unchanged.
# OTHER:      syn_wait_span(
# OTHER-NEXT: x = tl.load(x_ptr
# OTHER-NEXT: HAS_BIAS = bias_ptr is not None
# OTHER-NEXT: if HAS_BIAS:
# OTHER-NEXT:     b = tl.load(bias_ptr + rows, mask=rows < M)
