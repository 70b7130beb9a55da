# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, n):
    tl.store(x_ptr, undefined_thing)

# CHECK: {{.*}}err-unknown-name.py:8: unsupported name `undefined_thing`: not a parameter, local variable, jit function or import
