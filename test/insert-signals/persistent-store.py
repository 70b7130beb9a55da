# A persistent kernel's tile loop is a loop over tiles: a store in it is one
# tile's store, so its signal goes right after it, inside the loop (once per
# iteration). A store in any other loop is still refused.
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p insert-signals | filecheck %s
# RUN: sed -e 's/range(tl.program_id(0), tiles, PROGRAMS)/range(0, tiles, PROGRAMS)/' %s > %t.loop.py
# RUN: not overlap-opt %t.loop.py --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p insert-signals 2>&1 | filecheck %s --check-prefix=LOOP
import triton
import triton.language as tl


@triton.jit
def gemm_rs(a_ptr, c_ptr, M, stride_am, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
            PROGRAMS: tl.constexpr):
    tiles = tl.cdiv(M, BLOCK_M)
    for tile in range(tl.program_id(0), tiles, PROGRAMS):
        rows = tile * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
        x = tl.load(a_ptr + rows[:, None] * stride_am + cols[None, :])
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], x * 2)

# CHECK:      scf.for %tile
# CHECK:        tile.store
# CHECK-NEXT:   chunk.signal_span
# CHECK-SAME:   plan @rs tensor "c_ptr"
# CHECK-NEXT:   }

# LOOP: insert-signals: @gemm_rs stores 'c_ptr' inside a loop; signalling a chunk written by several iterations of one tile is not supported
# LOOP-SAME: The store is persistent-store.py.tmp.loop.py:19: 'tile.store', in the loop persistent-store.py.tmp.loop.py:15: 'scf.for'; a persistent kernel's loop over tiles is one only in the form `for tile in range(tl.program_id(0), tiles, step)`
