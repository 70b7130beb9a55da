# A persistent kernel walks its tiles in a loop (`tile = program, program +
# PROGRAMS, ...`): the A rows of a tile come from the loop variable, so the
# wait goes inside the tile loop, above the K loop (invariant there: one wait
# per tile, not per K step), and never above the tile loop, where it would
# read a tile that is not yet known.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2 size=M}' -p insert-signals | filecheck %s
# hoist_loops=true hoists any wait a loop variable moves, the tile loop's
# too: one whole-tensor wait before the first tile (correct, but no overlap
# is left, so persistent kernels want the default):
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2 size=M}' -p 'insert-signals{hoist_loops=true}' | filecheck %s --check-prefix=HOIST
import triton
import triton.language as tl


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PROGRAMS: tl.constexpr):
    num_n = tl.cdiv(N, BLOCK_N)
    tiles = tl.cdiv(M, BLOCK_M) * num_n
    for tile in range(tl.program_id(0), tiles, PROGRAMS):
        rows = (tile // num_n) * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = (tile % num_n) * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            ks = k0 + tl.arange(0, BLOCK_K)
            a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :])
            b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :])
            acc += tl.dot(a, b)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc)

# CHECK:      scf.for %tile
# CHECK-NOT:  scf.for
# CHECK:      chunk.wait_span
# CHECK-SAME: plan @ag tensor "a_ptr"
# CHECK:      scf.for %k0
# CHECK-NOT:  chunk.wait
# CHECK:      tile.load

# HOIST:      chunk.wait_span
# HOIST-SAME: plan @ag tensor "a_ptr"
# HOIST-NEXT: scf.for %tile
# HOIST-NOT:  chunk.wait
