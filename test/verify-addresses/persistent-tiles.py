# A persistent GEMM's tile loop without a tile reorder (order=none): the
# tile index is `PROGRAMS * j + pid` and the column tile `tile % num_n`
# with `num_n = tl.cdiv(N, BLOCK_N)`. The proof divides by that count, so
# it records N >= 1 (then cdiv(N, BLOCK_N) >= 1), which the runtime checks
# at every launch, and the store's column coordinate is proved >= 0.
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,insert-signals,verify-addresses{strict=true}' | filecheck %s
# A divisor that is not a parameter's tile count, `cdiv(N - 1, BLOCK_N)`
# (0 at N = 1: no least value of a parameter keeps it >= 1), is refused:
# RUN: sed 's/num_n = tl.cdiv(N, BLOCK_N)/num_n = tl.cdiv(N - 1, BLOCK_N)/' %s > %t.py
# RUN: not overlap-opt %t.py --plan 'reduce-scatter{tensor=c_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,insert-signals,verify-addresses{strict=true}' 2>&1 | filecheck %s --check-prefix=REFUSED
import triton
import triton.language as tl


@triton.jit
def gemm_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PROGRAMS: tl.constexpr):
    num_n = tl.cdiv(N, BLOCK_N)
    tiles = tl.cdiv(M, BLOCK_M) * num_n
    for tile in range(tl.program_id(axis=0), tiles, PROGRAMS):
        pid_m = tile // num_n
        pid_n = tile % num_n
        rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            ks = k0 + tl.arange(0, BLOCK_K)
            a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak,
                        mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn,
                        mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
            acc += tl.dot(a, b)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc,
                 mask=(rows[:, None] < M) & (cols[None, :] < N))

# CHECK:      chunk.assume = [{where = "persistent-tiles.py:{{[0-9]+}}: 'tile.store'", guards = [], least = {
# CHECK-SAME: N = 1 : i64
# CHECK:      chunk.signal_span
# REFUSED:    verify-addresses: {{.*}}persistent-tiles.py.tmp.py:{{[0-9]+}}: 'tile.store' is unbounded: the coordinate {{.*}}TMod{{.*}} is not provably >= 0
