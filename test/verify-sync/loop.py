# Loads in loops: a wait per iteration for the K-block the loop walks (an
# index from the loop variable, and a pointer the loop advances), and one
# wait above the loop for rows the loop does not move.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2 name=agk}' --plan 'all-gather{tensor=b_ptr dim=0 size=K world=2 name=agb}' --plan 'all-gather{tensor=r_ptr world=2 name=agr}' -p 'chunk-dependency-analysis,insert-signals,verify-sync' | filecheck %s
# The same with the K waits hoisted above the loop as waits for the whole tensor.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2 name=agk}' --plan 'all-gather{tensor=b_ptr dim=0 size=K world=2 name=agb}' --plan 'all-gather{tensor=r_ptr world=2 name=agr}' -p 'chunk-dependency-analysis,insert-signals{hoist_loops=true},verify-sync' | filecheck %s --check-prefix=HOIST
import triton
import triton.language as tl


@triton.jit
def loops(a_ptr, b_ptr, r_ptr, c_ptr, M, K, stride_am, stride_ak,
          BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    bp = b_ptr + ks
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rows[:, None] * stride_am + (k0 + ks)[None, :] * stride_ak)
        b = tl.load(bp)
        r = tl.load(r_ptr + rows)
        acc += tl.sum(a * b[None, :], axis=1) + r
        bp += BLOCK_K
    tl.store(c_ptr + rows, acc)

# CHECK:      chunk.wait_span %{{.*}}, %BLOCK_M plan @agr tensor "r_ptr"
# CHECK:      scf.for %k0
# CHECK:        chunk.wait_span_loop %k0, %BLOCK_K first %{{.*}} step %{{.*}} plan @agk tensor "a_ptr"
# CHECK:        chunk.wait_span_loop %{{.*}}, %BLOCK_K first %{{.*}} step %{{.*}} plan @agb tensor "b_ptr"

# HOIST:      chunk.wait_span %{{.*}}, %{{.*}} plan @agk tensor "a_ptr"
# HOIST:      chunk.wait_span %{{.*}}, %{{.*}} plan @agb tensor "b_ptr"
# HOIST:      scf.for %k0
# HOIST-NOT:  chunk.wait_span_loop
