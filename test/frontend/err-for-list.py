# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, n):
    for v in [1, 2, 3]:
        tl.store(x_ptr, v)

# CHECK: {{.*}}err-for-list.py:8: unsupported loop iterable (only range, tl.range, tl.static_range): `[1, 2, 3]`
