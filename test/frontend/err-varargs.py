# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, *args):
    tl.store(x_ptr, 1)

# CHECK: {{.*}}err-varargs.py:7: unsupported parameter kind in `bad` (*args, **kwargs, positional-only `/`)
