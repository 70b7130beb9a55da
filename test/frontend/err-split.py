# tl.split takes one block; anything else is refused at its line.
# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, BN: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BN))
    a, b = tl.split(x, x)

# CHECK: {{.*}}err-split.py:10: unsupported tl.split call (one block, no keywords): `tl.split(x, x)`
