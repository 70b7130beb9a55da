# The plan must describe the rows the kernel addresses: its extent along dim
# against the kernel's mask bounds, and stride= against the address. Each
# mismatch is a one-line error naming the access; the matching plan passes.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2 stride=stride_am}' -p chunk-dependency-analysis | filecheck %s
# RUN: not overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2 stride=stride_ak}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=STRIDE
# RUN: not overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2 stride=stride_zz}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=NOPARAM
# RUN: not overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2 stride=stride_bk}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=UNUSED
# RUN: not overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2 size=N}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=SIZE
# RUN: not overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=1 world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=DIM1
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=1 world=2 size=K}' -p chunk-dependency-analysis | filecheck %s --check-prefix=DIM1-OK
import triton
import triton.language as tl


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
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
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc)

# CHECK: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "a_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M"
# STRIDE: overlap-opt: error: chunk-dependency-analysis: plan-mismatch.py:23: 'tile.load': the plan's extent of dim 0 is M, but the index of 'a_ptr' it takes as that dim's (the term times stride_ak) is masked with < K; to split the index masked with < M, name its stride: `stride=stride_am` (the strides of 'a_ptr' may be declared in another order than its dims); to split the one masked with < K, give `size=K`
# NOPARAM: overlap-opt: error: chunk-dependency-analysis: plan @ag: stride=stride_zz of tensor 'a_ptr' is not a parameter of @gemm
# UNUSED: overlap-opt: error: chunk-dependency-analysis: plan-mismatch.py:23: 'tile.load': the plan's stride=stride_bk multiplies no index of the access of 'a_ptr' (its strides: stride_am, stride_ak)
# SIZE: overlap-opt: error: chunk-dependency-analysis: plan-mismatch.py:23: 'tile.load': the plan's extent of dim 0 is N, but the index of 'a_ptr' it takes as that dim's (the term times stride_am) is masked with < M; give `size=M` if that is the dim the plan splits
# DIM1: overlap-opt: error: chunk-dependency-analysis: plan-mismatch.py:23: 'tile.load': the plan's extent of dim 1 is M, but the index of 'a_ptr' it takes as that dim's (the term times stride_ak) is masked with < K; {{.*}} give `size=K`
# DIM1-OK: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "a_ptr", dim = 1 : i64, role = "read", lo = "?", extent = "BLOCK_K", loops = 1

# The same kernel with A's stride parameters declared the other way round (`stride_ak, stride_am`, as some
# kernels order them): declaration order no longer says which stride is the rows'. The refusal names the
# stride of the rows masked with < M, and the plans that name it pass. (These lines come last so that the
# kernel's line numbers above stay those the CHECK lines quote.)
# RUN: sed -e 's/M, N, K, stride_am, stride_ak,/M, N, K, stride_ak, stride_am,/' %s > %t.swapped.py
# RUN: not overlap-opt %t.swapped.py --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=SWAPPED
# RUN: overlap-opt %t.swapped.py --plan 'all-gather{tensor=a_ptr dim=0 world=2 stride=stride_am}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %t.swapped.py --plan 'all-gather{tensor=a_ptr dim=0 world=2 size=M stride=stride_am}' -p chunk-dependency-analysis | filecheck %s
# SWAPPED: overlap-opt: error: chunk-dependency-analysis: {{.*}}.py:23: 'tile.load': the plan's extent of dim 0 is M, but the index of 'a_ptr' it takes as that dim's (the term times stride_ak) is masked with < K; to split the index masked with < M, name its stride: `stride=stride_am`
