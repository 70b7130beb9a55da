# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, n):
    for i in range(n):
        break

# CHECK: {{.*}}err-break.py:9: unsupported statement (Break): `break`
