# A GEMM's masked pointer store of an all-reduced output pushes its value:
# the store stores chunk.push_reduce of the value through the same pointers
# and mask; insert-signals' signal of its rows stays (verify-sync proves it).
# RUN: overlap-opt %s --plan 'all-reduce{tensor=c_ptr dim=0 world=4 size=M}' -p 'chunk-dependency-analysis,insert-signals,push-all-reduce' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * K + ks[None, :], mask=rows[:, None] < M, other=0.0)
        b = tl.load(b_ptr + ks[:, None] * N + cols[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=rows[:, None] < M)

# CHECK:      %[[P:.*]] = chunk.push_reduce %acc_1 at %[[PTRS:[0-9]+]] mask %[[MASK:[0-9]+]] : !tile.block<?x1xi1> plan @ar tensor "c_ptr" {tile.origin = "push-all-reduce"}
# CHECK-NEXT: tile.store %[[P]], %[[PTRS]] mask %[[MASK]]
# CHECK:      chunk.signal_span
# CHECK-SAME: plan @ar tensor "c_ptr"
