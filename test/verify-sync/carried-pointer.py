# Issue 20's loop-carried pointer: `xp += BLOCK_K * stride_xk` inside the K
# loop, plus one more direct load of x_ptr after the loop. Both loads are
# bounded and each must be covered where it runs: the loop's load by a wait
# in the loop (gathered along K, the pointer walks it) or above it (gathered
# along M, the walk moves along another dim); the load after the loop by its
# own wait. Without waits, the loop's load is named first.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=1 size=K world=2}' -p 'chunk-dependency-analysis,insert-signals,verify-sync' | filecheck %s --check-prefix=K
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=0 size=M world=2}' -p 'chunk-dependency-analysis,insert-signals,verify-sync' | filecheck %s --check-prefix=M
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=1 size=K world=2}' -p 'chunk-dependency-analysis,insert-signals{waits=false},verify-sync' 2>&1 | filecheck %s --check-prefix=NOWAIT
import triton
import triton.language as tl


@triton.jit
def carried(x_ptr, y_ptr, M, K, stride_xm, stride_xk, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    ks = tl.arange(0, BLOCK_K)
    xp = x_ptr + rows[:, None] * stride_xm + ks[None, :] * stride_xk
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        acc += tl.load(xp)
        xp += BLOCK_K * stride_xk
    acc += tl.load(x_ptr + rows[:, None] * stride_xm + ks[None, :] * stride_xk)
    tl.store(y_ptr + rows[:, None] * BLOCK_K + ks[None, :], acc)

# K:      scf.for %k0
# K:        chunk.wait_span_loop {{.*}} plan @ag tensor "x_ptr"
# K:        tile.load
# K:      chunk.wait_span {{.*}} plan @ag tensor "x_ptr"
# K-NEXT: tile.load

# M:      chunk.wait_span {{.*}} plan @ag tensor "x_ptr"
# M:      scf.for %k0
# M-NOT:  chunk.wait_span
# M:      tile.load

# NOWAIT: overlap-opt: error: verify-sync: carried-pointer.py:22: 'tile.load' reads {{.*}} along dim 1 of 'x_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: none)
