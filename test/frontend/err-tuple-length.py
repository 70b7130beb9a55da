# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, n):
    a, b = n, n, n

# CHECK: {{.*}}err-tuple-length.py:8: unsupported tuple assignment (right side must have as many values): `(a, b)`
