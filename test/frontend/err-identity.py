# RUN: not overlap-opt %s 2>&1 | filecheck %s
# `is` / `is not` is supported only against None (what Triton specializes) and a dtype.
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, y_ptr):
    if x_ptr is y_ptr:
        tl.store(x_ptr, 1)

# CHECK: {{.*}}err-identity.py:9: unsupported identity test `x_ptr is y_ptr`: only `x is None`, `x is not None` and `x.dtype is tl.<dtype>` are supported (Triton decides them when it compiles; compare values with `==`)
