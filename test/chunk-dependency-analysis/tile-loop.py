# A persistent kernel's tile loop, `for tile in range(tl.program_id(0), count,
# step)` with step tl.num_programs(0) or a kernel parameter, is a 1-D grid of
# `count` tiles: its loop variable is pid0 in the footprints and the kernel
# records the count. Loops of another shape keep footprints that depend on a
# loop variable unknown ("?") and get no count.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p chunk-dependency-analysis | filecheck %s
import triton
import triton.language as tl


@triton.jit
def persistent(x_ptr, y_ptr, M, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PROGRAMS: tl.constexpr):
    num_n = tl.cdiv(M, BLOCK_N)
    tiles = tl.cdiv(M, BLOCK_M) * num_n
    for tile in range(tl.program_id(0), tiles, tl.num_programs(0)):
        rows = (tile // num_n) * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
        tl.store(y_ptr + rows[:, None] * stride_xm + cols[None, :], tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :]))

# CHECK: tile.func @persistent
# CHECK-SAME: chunk.tile_loop = "(cdiv(M, BLOCK_M) * cdiv(M, BLOCK_N))"
# CHECK: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "((pid0 // cdiv(M, BLOCK_N)) * BLOCK_M)", extent = "BLOCK_M", loops = 1 : i64, invariant = 0 : i64}

# The step is a literal: not a launch's program count, so not a tile loop.
# RUN: sed -e 's/tiles, tl.num_programs(0))/tiles, 4)/' %s > %t.literal.py
# RUN: overlap-opt %t.literal.py --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p chunk-dependency-analysis | filecheck %s --check-prefix=OTHER
# The loop starts at 0: every program walks every tile, not a tile loop.
# RUN: sed -e 's/range(tl.program_id(0), tiles/range(0 * tl.program_id(0), tiles/' %s > %t.zero.py
# RUN: overlap-opt %t.zero.py --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p chunk-dependency-analysis | filecheck %s --check-prefix=OTHER
# OTHER-NOT:  chunk.tile_loop
# OTHER:      tile.load {{.*}}lo = "?"
# OTHER-NOT:  chunk.tile_loop
