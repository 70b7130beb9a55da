# A tl.full without its dtype, 0-d or not, is refused naming the call.
# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def no_dtype(x_ptr, M, BLOCK: tl.constexpr):
    one = tl.full((), 1.0)
    tl.store(x_ptr + tl.arange(0, BLOCK), one, mask=tl.arange(0, BLOCK) < M)

# CHECK: err-full-dtype.py:9: unsupported tl.full arguments (shape, value, dtype=tl.<dtype>): `tl.full((), 1.0)`
