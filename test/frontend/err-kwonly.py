# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, *, n):
    tl.store(x_ptr, n)

# CHECK: {{.*}}err-kwonly.py:7: unsupported parameter kind in `bad` (*args, **kwargs, keyword-only)
