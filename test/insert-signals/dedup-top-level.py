# Regression: two loads of the same rows at one point outside any loop get
# one wait (the second is dominated by the first).
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p insert-signals | filecheck %s
import triton
import triton.language as tl


@triton.jit
def two_halves(x_ptr, y_ptr, M, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    cols2 = BLOCK_N + tl.arange(0, BLOCK_N)
    lo = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :])
    hi = tl.load(x_ptr + rows[:, None] * stride_xm + cols2[None, :])
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], lo + hi)

# CHECK:     chunk.wait_span
# CHECK:     %lo = tile.load
# CHECK-NOT: chunk.wait_span
# CHECK:     %hi = tile.load
