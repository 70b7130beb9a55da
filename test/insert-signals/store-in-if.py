# A store under `if`: the signal goes after the scf.if, so it runs exactly once
# per tile whether or not the store is predicated off. With a second plan
# (gather of x_ptr) the same kernel gets a wait before the load as well.
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2}' -p insert-signals | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' --plan 'reduce-scatter{tensor=c_ptr world=2}' -p insert-signals | filecheck %s --check-prefix=TWO
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' --plan 'reduce-scatter{tensor=c_ptr world=2}' -p 'insert-signals{waits=false}' | filecheck %s --check-prefix=NOWAIT
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' --plan 'reduce-scatter{tensor=c_ptr world=2}' -p 'insert-signals{signals=false}' | filecheck %s --check-prefix=NOSIGNAL
import triton
import triton.language as tl


@triton.jit
def rs_if(x_ptr, c_ptr, y_ptr, M, stride_xm, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    v = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :])
    if pid * BLOCK_M < M:
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], v)
    tl.store(y_ptr + cols, tl.sum(v, axis=0))

# CHECK:       %rows = tile.add %[[LO:[0-9]+]], %{{[0-9]+}}
# CHECK-NOT:   chunk.wait_span
# CHECK:       scf.if
# CHECK:         tile.store %v
# CHECK-NOT:     chunk.signal_span
# CHECK:       } else {
# CHECK-NEXT:  }
# CHECK-NEXT:  chunk.signal_span %[[LO]], %BLOCK_M plan @rs tensor "c_ptr" {tile.origin = "insert-signals"} : i32, !tile.constexpr
# CHECK-NOT:   chunk.signal_span
# CHECK:       tile.return

# TWO:       %rows = tile.add %[[LO:[0-9]+]], %{{[0-9]+}}
# TWO:       chunk.wait_span %[[LO]], %BLOCK_M plan @ag tensor "x_ptr" {tile.origin = "insert-signals"} : i32, !tile.constexpr
# TWO-NEXT:  %v = tile.load
# TWO:       scf.if
# TWO:       } else {
# TWO-NEXT:  }
# TWO-NEXT:  chunk.signal_span %[[LO]], %BLOCK_M plan @rs tensor "c_ptr"
# TWO:       chunk.plan @ag
# TWO:       chunk.plan @rs

# NOWAIT-NOT: chunk.wait_span
# NOWAIT:     chunk.signal_span {{.*}} plan @rs
# NOSIGNAL:     chunk.wait_span {{.*}} plan @ag
# NOSIGNAL-NOT: chunk.signal_span
