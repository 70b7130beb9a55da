# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p insert-signals | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 dim=1 size=K}' -p insert-signals | filecheck %s --check-prefix=K
import triton
import triton.language as tl


@triton.jit
def two_halves(x_ptr, y_ptr, M, K, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, 2 * BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        ks2 = k0 + BLOCK_K + tl.arange(0, BLOCK_K)
        lo = tl.load(x_ptr + rows[:, None] * stride_xm + ks[None, :])
        hi = tl.load(x_ptr + rows[:, None] * stride_xm + ks2[None, :])
        acc += lo + hi
    tl.store(y_ptr + rows[:, None] * stride_ym + tl.arange(0, BLOCK_K)[None, :], acc)

# Gather along M: both loads read the tile's rows, invariant in the K loop:
# one wait, hoisted above the loop.
# CHECK:      %[[LO:.*]] = tile.mul %{{.*}}, %BLOCK_M
# CHECK:      chunk.wait_span %[[LO]], %BLOCK_M plan @ag tensor "x_ptr" {tile.origin = "insert-signals"} : i32, !tile.constexpr
# CHECK-NEXT: scf.for %k0
# CHECK-NOT:  chunk.wait_span
# CHECK:      %lo = tile.load
# CHECK-NOT:  chunk.wait_span
# CHECK:      %hi = tile.load
# CHECK-NOT:  chunk.wait_span
# CHECK:      tile.return

# Gathered along K, two different column ranges per iteration, each waited for
# inside the loop right before its load. The first range is the loop variable
# itself, so it walks the loop (wait_span_loop: from the loop's lower bound,
# by its step, skipping the chunks the previous iteration waited for); the
# second is a computed value, so it is a plain wait.
# K:          scf.for %k0 = %[[LB:[0-9]+]] to %{{[0-9]+}} step %[[STEP:[0-9]+]]
# K:          %[[HI:[0-9]+]] = tile.add %k0, %BLOCK_K
# K:          chunk.wait_span_loop %k0, %BLOCK_K first %[[LB]] step %[[STEP]] plan @ag tensor "x_ptr"
# K-NEXT:     %lo = tile.load
# K:          chunk.wait_span %[[HI]], %BLOCK_K plan @ag tensor "x_ptr"
# K-NEXT:     %hi = tile.load
# K:          scf.yield
# K-NOT:      chunk.wait_span
