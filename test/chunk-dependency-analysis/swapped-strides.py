# A's stride parameters declared the other way round (`stride_ak, stride_am`,
# as some kernels order them): declaration order no longer says which stride
# is the rows'. The analysis takes the first for dim 0, sees that index masked
# with < K instead of the plan's extent M, and refuses, naming the stride the
# rows masked with < M use; the plan that names it passes, and so does the
# plan that names the rows' size and stride.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=SWAPPED
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2 stride=stride_am}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2 size=M stride=stride_am}' -p chunk-dependency-analysis | filecheck %s
import triton
import triton.language as tl


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_ak, stride_am, stride_bk, stride_bn,
         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))

# SWAPPED: overlap-opt: error: chunk-dependency-analysis: swapped-strides.py:22: 'tile.load': the plan's extent of dim 0 is M, but the index of 'a_ptr' it takes as that dim's (the term times stride_ak) is masked with < K; to split the index masked with < M, name its stride: `stride=stride_am`
# CHECK: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "a_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M"
