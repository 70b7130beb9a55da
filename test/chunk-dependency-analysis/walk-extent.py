# A range walked by loop-carried pointers (`k_ptrs += BLOCK_N * stride_kn`,
# the flash-attention tutorial's spelling) gets an uncut wait in every
# iteration, so its start must stay below the plan's extent in every
# iteration the loop runs: proved for pointers that start at the first
# block, in a loop over the rows (`range(0, N_KV, BLOCK_N)`) or over blocks
# (`range(0, tl.cdiv(N_KV, BLOCK_N))`, through cdiv(a, b) <= (a + b - 1) / b).
# Pointers that start 5 rows on can start past the extent in the last
# iteration (N_KV = 36, BLOCK_N = 16: rows 37 onwards), where no chunk lies:
# refused naming the line, with the rewrite.
# RUN: overlap-opt %s --kernel walk_rows --plan 'all-gather{tensor=k_ptr world=2 size=N_KV}' -p chunk-dependency-analysis | filecheck %s --check-prefix=ROWS
# RUN: overlap-opt %s --kernel walk_blocks --plan 'all-gather{tensor=k_ptr world=2 size=N_KV}' -p chunk-dependency-analysis | filecheck %s --check-prefix=BLOCKS
# RUN: not overlap-opt %s --kernel walk_shifted --plan 'all-gather{tensor=k_ptr world=2 size=N_KV}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=SHIFTED
import triton
import triton.language as tl


@triton.jit
def walk_rows(k_ptr, o_ptr, N_KV, stride_kn, stride_kd, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    ds = tl.arange(0, BLOCK_D)
    offs_n = tl.arange(0, BLOCK_N)
    k_ptrs = k_ptr + offs_n[:, None] * stride_kn + ds[None, :] * stride_kd
    acc = tl.zeros((BLOCK_D,), dtype=tl.float32)
    for start_n in range(0, N_KV, BLOCK_N):
        acc += tl.sum(tl.load(k_ptrs, mask=(start_n + offs_n)[:, None] < N_KV, other=0.0), 0)
        k_ptrs += BLOCK_N * stride_kn
    tl.store(o_ptr + tl.program_id(axis=0) * BLOCK_D + ds, acc)


@triton.jit
def walk_blocks(k_ptr, o_ptr, N_KV, stride_kn, stride_kd, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    ds = tl.arange(0, BLOCK_D)
    offs_n = tl.arange(0, BLOCK_N)
    k_ptrs = k_ptr + offs_n[:, None] * stride_kn + ds[None, :] * stride_kd
    acc = tl.zeros((BLOCK_D,), dtype=tl.float32)
    for j in range(0, tl.cdiv(N_KV, BLOCK_N)):
        acc += tl.sum(tl.load(k_ptrs, mask=(j * BLOCK_N + offs_n)[:, None] < N_KV, other=0.0), 0)
        k_ptrs += BLOCK_N * stride_kn
    tl.store(o_ptr + tl.program_id(axis=0) * BLOCK_D + ds, acc)


@triton.jit
def walk_shifted(k_ptr, o_ptr, N_KV, stride_kn, stride_kd, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    ds = tl.arange(0, BLOCK_D)
    offs_n = tl.arange(0, BLOCK_N) + 5
    k_ptrs = k_ptr + offs_n[:, None] * stride_kn + ds[None, :] * stride_kd
    acc = tl.zeros((BLOCK_D,), dtype=tl.float32)
    for start_n in range(0, N_KV, BLOCK_N):
        acc += tl.sum(tl.load(k_ptrs, mask=(start_n + offs_n)[:, None] < N_KV, other=0.0), 0)
        k_ptrs += BLOCK_N * stride_kn
    tl.store(o_ptr + tl.program_id(axis=0) * BLOCK_D + ds, acc)

# ROWS:    tile.load %k_ptrs{{.*}} {chunk.access = {plan = @ag, tensor = "k_ptr", dim = 0 : i64, role = "read", lo = "?", extent = "BLOCK_N", loops = 1 : i64, invariant = 0 : i64}}
# BLOCKS:  tile.load %k_ptrs{{.*}} {chunk.access = {plan = @ag, tensor = "k_ptr", dim = 0 : i64, role = "read", lo = "?", extent = "BLOCK_N", loops = 1 : i64, invariant = 0 : i64}}
# SHIFTED: chunk-dependency-analysis: {{.*}}walk-extent.py:48: 'tile.load': the access of 'k_ptr' along dim 0: its rows start at BLOCK_N*i_start_n + 5, walked by a loop-carried pointer, and its start in the loop's last iteration is not provably below the plan's extent N_KV
