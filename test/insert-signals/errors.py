# A reduce-scattered tensor stored inside a loop cannot be signalled once per tile.
# RUN: not overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2}' -p insert-signals 2>&1 | filecheck %s
# With signals=false nothing is signalled, so the loop is fine.
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2}' -p 'insert-signals{signals=false}' | filecheck %s --check-prefix=OFF
# The analysis runs first: without a plan the pass fails the same way.
# RUN: not overlap-opt %s -p insert-signals 2>&1 | filecheck %s --check-prefix=NOPLAN
import triton
import triton.language as tl


@triton.jit
def rs_loop(c_ptr, M, K, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    for k in range(0, K):
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], k)

# CHECK: insert-signals: @rs_loop stores 'c_ptr' inside a loop; signalling a chunk written by several iterations of one tile is not supported (store once per tile, after the loop)
# OFF-NOT: chunk.signal_span
# OFF: chunk.plan @rs
# NOPLAN: chunk-dependency-analysis: the module has no chunk.plan
