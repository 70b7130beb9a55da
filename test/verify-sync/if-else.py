# The same rows loaded in both arms of an if/else: each arm needs its own
# wait (a wait in one arm covers nothing in the other), and the store under
# `if` is counted by the one signal after the scf.if, on both paths.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' --plan 'reduce-scatter{tensor=c_ptr world=2}' -p 'chunk-dependency-analysis,insert-signals,verify-sync' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def branches(x_ptr, c_ptr, M, stride_xm, stride_cm, flip, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    if flip > 0:
        v = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :]) * 2.0
    else:
        v = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :])
    if pid * BLOCK_M < M:
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], v)

# CHECK:      scf.if
# CHECK:        chunk.wait_span %[[LO:[0-9]+]], %BLOCK_M plan @ag tensor "x_ptr"
# CHECK-NEXT:   tile.load
# CHECK:      } else {
# CHECK:        chunk.wait_span %[[LO]], %BLOCK_M plan @ag tensor "x_ptr"
# CHECK-NEXT:   tile.load
# CHECK:      scf.if
# CHECK:        tile.store
# CHECK:      } else {
# CHECK-NEXT: }
# CHECK-NEXT: chunk.signal_span %[[LO]], %BLOCK_M plan @rs tensor "c_ptr"
