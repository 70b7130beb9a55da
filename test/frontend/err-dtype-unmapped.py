# Triton's float8e4b15 (exponent bias 15) has no exact IR type: refused naming the value, not a traceback.
# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def k(a_ptr, c_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r)
    if a_ptr.dtype.element_ty == tl.float8e4b15:
        a = a * 2.0
    tl.store(c_ptr + r, a)

# CHECK: err-dtype-unmapped.py:11: unsupported value (expected a tensor or scalar): `tl.float8e4b15`
