# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, n):
    c = 0 < n < 10

# CHECK: {{.*}}err-chained-compare.py:8: unsupported chained comparison: `0 < n < 10`
