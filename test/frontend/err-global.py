# RUN: not overlap-opt %s 2>&1 | filecheck %s
# A kernel may read a module-level constant only when it is a literal
# (Triton itself only lets kernels read constexpr globals).
import triton
import triton.language as tl

SHAPE = (4, 8)


@triton.jit
def bad(x_ptr):
    tl.store(x_ptr, SHAPE)

# CHECK: {{.*}}err-global.py:12: unsupported global `SHAPE`: a kernel may read a module-level constant only when it is a literal number, string or dtype (e.g. `SHAPE: tl.constexpr = 8`)
