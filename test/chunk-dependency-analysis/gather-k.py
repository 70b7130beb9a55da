# A gather along K: the footprint of the A load moves with the loop variable,
# so it is data/loop-dependent (lo "?") and invariant in no loop.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2}' -p chunk-dependency-analysis | filecheck %s
# The same kernel gathered along M: the A load is inside the loop but does not depend on it.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=ROWS
import triton
import triton.language as tl


@triton.jit
def gemm_k(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_cm,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc)

# CHECK:      scf.for %k0 =
# CHECK:      %a = tile.load {{.*}}{chunk.access = {plan = @ag, tensor = "a_ptr", dim = 1 : i64, role = "read", lo = "?", extent = "BLOCK_K", loops = 1 : i64, invariant = 0 : i64}}
# CHECK-NOT:  chunk.access
# CHECK:      chunk.tensor "a_ptr" -> "a_ptr" shape ["D0", "K"] strides ["stride_a_ptr_0", "stride_ak"]
# CHECK-NEXT: chunk.chunk id 0 "a_ptr" dim 1 offset 0 size "K/2"

# ROWS:       scf.for %k0 =
# ROWS:       %a = tile.load {{.*}}{chunk.access = {plan = @ag, tensor = "a_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 1 : i64, invariant = 1 : i64}}
# ROWS:       chunk.tensor "a_ptr" -> "a_ptr" shape ["M", "D1"] strides ["stride_am", "stride_a_ptr_1"]
