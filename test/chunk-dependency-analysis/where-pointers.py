# `tl.where` choosing between pointers: the analysis cannot tell which tensor
# a lane reads, so an access of a planned tensor through it is refused with
# its line (it was a traceback: the frontend typed the choice as a scalar).
# A choice between unplanned pointers is emitted as written.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=N stride=1}' -p chunk-dependency-analysis 2>&1 | filecheck %s
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=y_ptr world=2 size=N stride=1}' -p overlap -t triton 2>&1 | filecheck %s --check-prefix=UNPLANNED
import triton
import triton.language as tl


@triton.jit
def pick(x_ptr, z_ptr, y_ptr, N, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    p = tl.where(rows < N // 2, x_ptr + rows, z_ptr + rows)
    x = tl.load(p, mask=rows < N)
    tl.store(y_ptr + rows, x, mask=rows < N)

# CHECK: chunk-dependency-analysis: where-pointers.py:15: 'tile.load': accesses 'x_ptr' through a pointer chosen by `tl.where`; the analysis cannot tell which tensor a lane reads
# UNPLANNED: p = tl.where(rows < N // 2, x_ptr + rows, z_ptr + rows)
# UNPLANNED-NEXT: x = tl.load(p, mask=rows < N)
