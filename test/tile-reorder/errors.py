# Bad options and kernels the pass cannot reorder.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 stride=stride_xm}' -p 'tile-reorder{order=bogus}' 2>&1 | filecheck %s --check-prefix=ORDER
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 stride=stride_xm}' -p 'tile-reorder{order=arrival group=0}' 2>&1 | filecheck %s --check-prefix=GROUP
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 stride=stride_xm}' -p 'tile-reorder{order=rotate axis=3}' 2>&1 | filecheck %s --check-prefix=AXIS
# RUN: not overlap-opt %s -p 'tile-reorder{order=arrival}' 2>&1 | filecheck %s --check-prefix=NOPLAN
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 stride=stride_xm}' -p 'tile-reorder{order=arrival}' 2>&1 | filecheck %s --check-prefix=NOPID
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 stride=stride_xm}' -p 'tile-reorder{order=rotate}' 2>&1 | filecheck %s --check-prefix=NOPID
import triton
import triton.language as tl


# The rows come from memory, not from the program id: nothing to reorder.
@triton.jit
def no_pid(x_ptr, start_ptr, y_ptr, M, stride_xm, BLOCK: tl.constexpr):
    start = tl.load(start_ptr)
    rows = start + tl.arange(0, BLOCK)
    tl.store(y_ptr + rows, tl.load(x_ptr + rows * stride_xm))

# ORDER: tile-reorder: unknown order 'bogus', expected one of none, arrival, rotate
# GROUP: tile-reorder: group must be >= 1, got 0
# AXIS: tile-reorder: axis must be 0, 1 or 2, got 3
# NOPLAN: chunk-dependency-analysis: the module has no chunk.plan (give one with overlap-opt --plan SPEC)
# NOPID: tile-reorder: @no_pid never calls tl.program_id
