# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, n):
    y = tl.load(x_ptr)[0]

# CHECK: {{.*}}err-subscript.py:8: unsupported subscript (only `:` and `None`, as in x[:, None]): `tl.load(x_ptr)[0]`
