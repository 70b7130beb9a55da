# A 1-D access of a 2-D plan tensor: the stride term cannot be matched to dim 0
# until the plan names it with stride=.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=ERR
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 stride=stride_xm}' -p chunk-dependency-analysis | filecheck %s
import triton
import triton.language as tl


@triton.jit
def flat_rows(x_ptr, y_ptr, M, stride_xm, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + rows * stride_xm)
    tl.store(y_ptr + rows, x)

# ERR: chunk-dependency-analysis: ambiguous-stride.py:12: 'tile.load': cannot tell which address term of 'x_ptr' is dim 0 (terms with strides: stride_xm (block axis 0)); give the plan option stride=<the stride parameter of dim 0>

# CHECK: %x = tile.load %{{[0-9]+}} {chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK)", extent = "BLOCK", loops = 0 : i64, invariant = 0 : i64}}
# CHECK: chunk.tensor "x_ptr" -> "x_ptr" shape ["M", "D1"] strides ["stride_xm", "stride_x_ptr_1"]
