# Accesses through block pointers (lowered at import to pointer arithmetic):
# the footprint along the plan's dim is the block pointer's offset plus its
# block size; a loop that advances it along that dim walks it (the access is
# not invariant, so its wait stays in the loop); one that advances it along
# another dim leaves it invariant (the wait hoists).
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=b_ptr world=2 size=K}' -p chunk-dependency-analysis | filecheck %s --check-prefix=WALK
# RUN: overlap-opt %s --plan 'all-gather{tensor=bt_ptr world=2 size=N}' -p chunk-dependency-analysis | filecheck %s --check-prefix=TRANS
# RUN: overlap-opt %s --plan 'all-gather{tensor=bt_ptr world=2 dim=1 size=K}' -p chunk-dependency-analysis | filecheck %s --check-prefix=TRANSK
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=RS
import triton
import triton.language as tl


@triton.jit
def bp_matmul(a_ptr, b_ptr, bt_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
              stride_btn, stride_btk, stride_cm, stride_cn,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_block = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, pid_n * BLOCK_N), (BLOCK_K, BLOCK_N), (1, 0))
    # B^T stored (N, K), read as a (K, N) block: its dim 0 (K) is the tensor's dim 1
    bt_block = tl.make_block_ptr(bt_ptr, (K, N), (stride_btk, stride_btn), (0, pid_n * BLOCK_N), (BLOCK_K, BLOCK_N),
                                 (0, 1))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_block, boundary_check=(0, 1))
        b = tl.load(b_block, boundary_check=(0, 1))
        bt = tl.load(bt_block, boundary_check=(0, 1))
        acc += tl.dot(a, b + bt)
        a_block = tl.advance(a_block, (0, BLOCK_K))
        b_block = tl.advance(b_block, (BLOCK_K, 0))
        bt_block = tl.advance(bt_block, (BLOCK_K, 0))
    c_block = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (pid_m * BLOCK_M, pid_n * BLOCK_N),
                                (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_block, acc, boundary_check=(0, 1))

# CHECK:      %a = tile.load {{.*}} {chunk.access = {plan = @ag, tensor = "a_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 1 : i64, invariant = 1 : i64}}
# CHECK:      %b = tile.load
# CHECK-NOT:  chunk.access
# CHECK:      scf.yield

# WALK:       %b = tile.load {{.*}} {chunk.access = {plan = @ag, tensor = "b_ptr", dim = 0 : i64, role = "read", lo = "?", extent = "BLOCK_K", loops = 1 : i64, invariant = 0 : i64}}

# The tensor's dim 0 (N rows, stride stride_btn) is the block pointer's dim 1: found by its stride.
# TRANS:      %bt = tile.load {{.*}} {chunk.access = {plan = @ag, tensor = "bt_ptr", dim = 0 : i64, role = "read", lo = "(pid1 * BLOCK_N)", extent = "BLOCK_N", loops = 1 : i64, invariant = 1 : i64}}
# TRANSK:     %bt = tile.load {{.*}} {chunk.access = {plan = @ag, tensor = "bt_ptr", dim = 1 : i64, role = "read", lo = "?", extent = "BLOCK_K", loops = 1 : i64, invariant = 0 : i64}}

# RS-NOT:     tile.load {{.*}}chunk.access
# RS:         tile.store {{.*}} {chunk.access = {plan = @rs, tensor = "c_ptr", dim = 0 : i64, role = "write", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 0 : i64, invariant = 0 : i64}}
