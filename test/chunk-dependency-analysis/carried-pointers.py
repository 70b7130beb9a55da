# Pointer blocks carried through a loop (`a_ptrs += BLOCK_K * stride_ak`):
# the footprint is the initial pointer's, moved along the dim whose stride
# the step holds. Gathered along M, the A load does not move (invariant in
# the K loop: waits hoist); gathered along K it walks (lo "?", varying).
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=ROWS
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=COLS
# B is walked along its dim 0 (K) by a while loop, which has no iteration number:
# RUN: not overlap-opt %s --plan 'all-gather{tensor=b_ptr dim=0 size=K world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=WHILE
# ...while gathering B's columns (dim 1) is not moved by that loop:
# RUN: overlap-opt %s --plan 'all-gather{tensor=b_ptr dim=1 size=N world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=BCOLS
import triton
import triton.language as tl


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs)
        acc += tl.sum(a, axis=1)[:, None] + tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        a_ptrs += BLOCK_K * stride_ak
    k0 = 0
    while k0 < K:
        acc += tl.dot(acc, tl.load(b_ptrs))
        b_ptrs += BLOCK_K * stride_bk
        k0 += BLOCK_K
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc)

# ROWS:      %a = tile.load %a_ptrs{{.*}} {chunk.access = {plan = @ag, tensor = "a_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 1 : i64, invariant = 1 : i64}}
# COLS:      %a = tile.load %a_ptrs{{.*}} {chunk.access = {plan = @ag, tensor = "a_ptr", dim = 1 : i64, role = "read", lo = "?", extent = "BLOCK_K", loops = 1 : i64, invariant = 0 : i64}}
# WHILE:     chunk-dependency-analysis: {{.*}}a while loop advances the pointer of 'b_ptr' along dim 0, so the rows of an iteration are not known; use a for loop (`for k in range(...)`)
# BCOLS:     tile.load %b_ptrs{{.*}} {chunk.access = {plan = @ag, tensor = "b_ptr", dim = 1 : i64, role = "read", lo = "(pid1 * BLOCK_N)", extent = "BLOCK_N", loops = 1 : i64, invariant = 1 : i64}}
