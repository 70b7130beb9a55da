# A plan on a tensor descriptor made on the host is refused (its block shape
# is only known at launch) with the in-kernel descriptor that fuses; a plan on
# another tensor of the same kernel is analysed as usual.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=a_desc world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=RS
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

# CHECK: chunk-dependency-analysis: host-descriptor.py:17: 'tile.desc_load': 'a_desc' is a tensor descriptor made on the host (a TensorDescriptor argument), whose block shape is only known at launch; pass the tensor instead and make the descriptor in the kernel: `a_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, K], strides=[stride_m, 1], block_shape=[BLOCK_M, BLOCK_K])`

# RS:    tile.store {{.*}} {chunk.access = {plan = @rs, tensor = "c_ptr", dim = 0 : i64, role = "write", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 0 : i64, invariant = 0 : i64}}
