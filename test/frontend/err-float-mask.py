# A mask of numbers (`(cols < n) * 1.0`) is the kernel's error, as in Triton ("Mask must have boolean scalar
# type"): refused at the access's line, not as an internal error of the importer at line 1.
# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def float_mask(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    tl.store(y_ptr + cols, x, mask=(cols < n) * 1.0)

# CHECK: overlap-opt: error: {{.*}}err-float-mask.py:12: the mask of this store is !tile.block<?xf32>, not boolean: Triton takes a mask of i1
# CHECK-NOT: internal error
