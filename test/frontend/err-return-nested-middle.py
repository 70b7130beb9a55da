# RUN: not overlap-opt %s 2>&1 | filecheck %s
# A `return` nested in an `if` and followed by statements of its own block,
# which never run: refused at the return, as at the top level.
import triton
import triton.language as tl


@triton.jit
def bad(x_ptr, n, FLAG: tl.constexpr):
    if FLAG:
        if n > 0:
            return
            tl.store(x_ptr, n)
    tl.store(x_ptr + 1, n)

# CHECK: {{.*}}err-return-nested-middle.py:12: unsupported `return` before the end of the function (early exit)
