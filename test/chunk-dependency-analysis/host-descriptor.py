# A plan on a tensor descriptor made on the host (a TensorDescriptor
# argument): its loads span `a_desc.block_shape[d]` along dim d, which only
# the launch knows. The analysis adds one tile.desc_block_size per dim at the
# top of the kernel and uses it as the extent (on the host, the launch symbol
# a_desc__block_shape_<d>). A plan on another tensor is analysed as usual, and
# a plan dim the descriptor does not have is an error naming the load.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_desc world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=RS
# RUN: not overlap-opt %s --plan 'all-gather{tensor=a_desc world=2 dim=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=DIM
import triton
import triton.language as tl


@triton.jit
def host_desc_gemm(a_desc, b_desc, c_ptr, M, N, K, stride_cm,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for off_k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, off_k])
        b = b_desc.load([off_k, off_n])
        acc = tl.dot(a, b, acc)
    rows = off_m + tl.arange(0, BLOCK_M)
    cols = off_n + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc, mask=rows[:, None] < M)

# CHECK:      tile.func @host_desc_gemm(%a_desc: !tile.desc<2>,
# CHECK-NEXT:   %{{.*}} = tile.desc_block_size %a_desc[0 : i64] : !tile.desc<2>
# CHECK-NEXT:   %{{.*}} = tile.desc_block_size %a_desc[1 : i64] : !tile.desc<2>
# CHECK-NOT:    tile.desc_block_size %b_desc
# CHECK:        tile.desc_load %a_desc[%off_m, %off_k] {chunk.access = {plan = @ag, tensor = "a_desc", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "a_desc__block_shape_0", loops = 1 : i64, invariant = 1 : i64}}
# CHECK-NEXT:   tile.desc_load %b_desc[%off_k, %off_n] : !tile.desc<2>

# RS-NOT:  tile.desc_block_size
# RS:      tile.store {{.*}} {chunk.access = {plan = @rs, tensor = "c_ptr", dim = 0 : i64, role = "write", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 0 : i64, invariant = 0 : i64}}

# DIM: chunk-dependency-analysis: host-descriptor.py:21: 'tile.desc_load': descriptor has 2 dims, the plan splits dim 2
