# Tensor-descriptor accesses: the footprint is the load's offset and the
# descriptor's block shape along the plan's dim.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=K
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=RS
# RUN: not overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=2 size=K world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=DIM
import triton
import triton.language as tl


@triton.jit
def desc_gemm(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for off_k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, off_k])
        b = b_desc.load([off_k, off_n])
        acc += tl.dot(a, b)
    c_desc.store([off_m, off_n], acc)

# CHECK:      %a = tile.desc_load %a_desc[%off_m, %off_k] {chunk.access = {plan = @ag, tensor = "a_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 1 : i64, invariant = 1 : i64}}
# CHECK-NEXT: %b = tile.desc_load %b_desc[%off_k, %off_n] : !tile.desc<2>
# CHECK-NOT:  chunk.access
# CHECK:      chunk.tensor "a_ptr" -> "a_ptr" shape ["M", "D1"]

# K:          %a = tile.desc_load %a_desc[%off_m, %off_k] {chunk.access = {plan = @ag, tensor = "a_ptr", dim = 1 : i64, role = "read", lo = "?", extent = "BLOCK_K", loops = 1 : i64, invariant = 0 : i64}}

# RS-NOT:     tile.desc_load {{.*}}chunk.access
# RS:         tile.desc_store %acc_1, %c_desc[%off_m, %off_n] {chunk.access = {plan = @rs, tensor = "c_ptr", dim = 0 : i64, role = "write", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 0 : i64, invariant = 0 : i64}}
# RS:         chunk.tensor "c_ptr" -> "c_ptr"

# DIM: chunk-dependency-analysis: descriptor.py:20: 'tile.desc_load': descriptor has 2 dims, the plan splits dim 2
