# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, n):
    return
    tl.store(x_ptr, n)

# CHECK: {{.*}}err-return-middle.py:8: unsupported `return` before the end of the function (early exit)
