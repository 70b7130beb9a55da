# An index loaded from memory (no `scalar + tl.arange`) cannot be bounded.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=N stride=1}' -p chunk-dependency-analysis 2>&1 | filecheck %s
# Without stride=1 the 1-D address (one unit-stride index) is dim 0 all the same: same error.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=N}' -p chunk-dependency-analysis 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def gathered_idx(x_ptr, idx_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    idx = tl.load(idx_ptr + offs)
    tl.store(y_ptr + offs, tl.load(x_ptr + idx))

# CHECK: chunk-dependency-analysis: loaded-index.py:13: 'tile.load': cannot bound the access of 'x_ptr' along dim 0: the index is not 'scalar + tl.arange(0, BLOCK)' (found tile.load)
