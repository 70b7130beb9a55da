# `a, b = tl.split(x)`: the persistent-matmul tutorial's subtiled epilogue splits a tile into two column halves.
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
import triton
import triton.language as tl


@triton.jit
def halves(x_ptr, lo_ptr, hi_ptr, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    x = tl.load(x_ptr + rows[:, None] * BN + cols[None, :])
    pairs = tl.permute(tl.reshape(x, (BM, 2, BN // 2)), (0, 2, 1))
    left, right = tl.split(pairs)
    half = tl.arange(0, BN // 2)
    tl.store(lo_ptr + rows[:, None] * (BN // 2) + half[None, :], left)
    tl.store(hi_ptr + rows[:, None] * (BN // 2) + half[None, :], right)

# CHECK: %left, %right = tile.split %pairs : !tile.any -> !tile.any, !tile.any
# CHECK: tile.store {{.*}}%left
# CHECK: tile.store {{.*}}%right
# EMIT: left, right = tl.split(pairs)
# EMIT: tl.store(lo_ptr + {{.*}}, left)
# EMIT: tl.store(hi_ptr + {{.*}}, right)
