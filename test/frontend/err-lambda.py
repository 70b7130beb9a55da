# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, n):
    f = lambda v: v

# CHECK: {{.*}}err-lambda.py:8: unsupported expression (Lambda): `lambda v: v`
