# RUN: not overlap-opt %s 2>&1 | filecheck %s
# A `return` inside a loop exits the function, not the iteration: refused.
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, n):
    for i in range(n):
        if i > 3:
            return
        tl.store(x_ptr + i, i)

# CHECK: {{.*}}err-return-in-loop.py:11: unsupported `return` before the end of the function (early exit)
