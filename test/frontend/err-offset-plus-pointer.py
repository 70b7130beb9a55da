# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, n):
    tl.store(x_ptr, 1)
    q = n + x_ptr

# CHECK: {{.*}}err-offset-plus-pointer.py:9: unsupported `offset + pointer`: write the pointer on the left (`pointer + offset`)
