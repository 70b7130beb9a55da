# Dtype comparisons and casts with Triton's fp8 dtypes (tutorial 09: `if a_ptr.dtype.element_ty == tl.float8e4nv`).
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
import triton
import triton.language as tl


@triton.jit
def scaled(a_ptr, c_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r)
    if a_ptr.dtype.element_ty == tl.float8e4nv:
        a = a.to(tl.float32) * 2.0
    elif c_ptr.dtype.element_ty != tl.float8e5:
        a = a.to(tl.float8e4b8).to(tl.float32)
    tl.store(c_ptr + r, a.to(tl.float8e5b16))

# CHECK: tile.literal f8E4M3FN
# CHECK: tile.literal f8E5M2
# CHECK: tile.cast {{.*}}dtype = f8E4M3FNUZ
# CHECK: tile.cast {{.*}}dtype = f8E5M2FNUZ
# EMIT: if a_ptr.dtype.element_ty == tl.float8e4nv:
# EMIT: if c_ptr.dtype.element_ty != tl.float8e5:
# EMIT: a.to(tl.float8e4b8).to(tl.float32)
# EMIT: a.to(tl.float8e5b16)
