# A `tl.*` call the analysis does not model whose result may be a block, in the address of a planned
# tensor, is refused with its line: `tl.zeros_like(rows)` is a block, and
# taking it for a scalar offset made a wait whose bound was a block (it polled
# nothing). The same call in an unplanned tensor's address does not matter.
# RUN: not overlap-opt %s --kernel shifted --plan 'all-gather{tensor=x_ptr world=2 size=N stride=1}' -p chunk-dependency-analysis 2>&1 | filecheck %s
# RUN: not overlap-opt %s --kernel scalar_call --plan 'all-gather{tensor=x_ptr world=2 size=N stride=1}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=SCALAR
# RUN: overlap-opt %s --kernel shifted --plan 'reduce-scatter{tensor=y_ptr world=2 size=N stride=1}' -p overlap -t triton 2>&1 | filecheck %s --check-prefix=UNPLANNED
import triton
import triton.language as tl


@triton.jit
def shifted(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    idx = rows + 16 + tl.zeros_like(rows)
    x = tl.load(x_ptr + idx, mask=idx < N)
    tl.store(y_ptr + rows, x, mask=rows < N)


@triton.jit
def scalar_call(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.math.abs(rows), mask=rows < N)
    tl.store(y_ptr + rows, x, mask=rows < N)

# CHECK: chunk-dependency-analysis: unmodelled-call.py:16: 'tile.load': access of 'x_ptr': its address calls `tl.zeros_like`, which this analysis does not model
# SCALAR: chunk-dependency-analysis: unmodelled-call.py:23: 'tile.load': access of 'x_ptr': its address calls `tl.math.abs`, which this analysis does not model
# UNPLANNED: def shifted(
# UNPLANNED: x = tl.load(x_ptr + idx, mask=idx < N)
# UNPLANNED: tl.store(y_ptr + rows, x, mask=rows < N)
