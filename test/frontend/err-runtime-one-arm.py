# Under a runtime condition a name bound in one arm is not visible after the `if` (Triton refuses it too).
# RUN: not overlap-opt %s 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def weighted(x_ptr, w_ptr, y_ptr, N, has_weight, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < N, other=0.0)
    if has_weight > 0:
        w = tl.load(w_ptr + cols, mask=cols < N, other=0.0)
    tl.store(y_ptr + cols, x * w, mask=cols < N)

# CHECK: err-runtime-one-arm.py:13: unsupported name `w`: not a parameter, local variable, jit function or import
