# Regression: the common 1-D access `x_ptr + offs` with
# `offs = pid * BLOCK + tl.arange(0, BLOCK)` (unit stride) is bounded.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=N stride=1}' -p chunk-dependency-analysis | filecheck %s
import triton
import triton.language as tl


@triton.jit
def vcopy(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < N), mask=offs < N)

# CHECK: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK)", extent = "BLOCK", loops = 0 : i64, invariant = 0 : i64}
