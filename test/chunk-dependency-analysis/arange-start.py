# A block index from tl.arange with a non-zero start is refused, not taken as [lo, lo + end): nothing is guessed.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=N stride=1}' -p chunk-dependency-analysis 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def shifted(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(4, 4 + BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < N))

# CHECK: arange-start.py:10: {{.*}}tl.arange must start at 0 for its range to be bounded
