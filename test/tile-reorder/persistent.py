# A persistent kernel walks a 1-D grid of tiles in a loop over program ids
# (`for tile in range(tl.program_id(0), tiles, PROGRAMS)`): its program ids
# stay as they are and the loop variable is remapped at the top of the body,
# through the order table (arrival) or by the rank's shift modulo the tile
# count (rotate). axis=1 does not exist in that grid.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p 'tile-reorder{order=arrival}' -t triton | filecheck %s --check-prefix=ARRIVAL
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p 'tile-reorder{order=rotate}' -t triton | filecheck %s --check-prefix=ROTATE
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p 'tile-reorder{order=rotate axis=1}' 2>&1 | filecheck %s --check-prefix=AXIS
import triton
import triton.language as tl


@triton.jit
def tile_copy(x_ptr, y_ptr, M, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              PROGRAMS: tl.constexpr):
    tiles = tl.cdiv(M, BLOCK_M)
    for tile in range(tl.program_id(0), tiles, PROGRAMS):
        rows = tile * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=rows[:, None] < M)
        tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x, mask=rows[:, None] < M)

# ARRIVAL:      def tile_copy({{.*}}PROGRAMS: tl.constexpr, syn_tile_order):
# ARRIVAL:        for tile in range(tl.program_id(axis=0), tiles, PROGRAMS):
# ARRIVAL-NEXT:     # inserted by tile-reorder
# ARRIVAL-NEXT:     [[T:tmp[_0-9]*]] = syn_tile_pid0(syn_tile_order, tile, 0, 0, tiles, 1)
# ARRIVAL-NEXT:     rows = [[T]] * BLOCK_M + tl.arange(0, BLOCK_M)
# ARRIVAL-NOT:    tile * BLOCK_M
# ARRIVAL:      def syn_tile_pid0(

# ROTATE:       def tile_copy({{.*}}PROGRAMS: tl.constexpr, syn_rotate):
# ROTATE:         for tile in range(tl.program_id(axis=0), tiles, PROGRAMS):
# ROTATE:           rows = (tile + syn_rotate) % tiles * BLOCK_M + tl.arange(0, BLOCK_M)
# ROTATE-NOT:     syn_tile_pid0

# AXIS: tile-reorder: @tile_copy walks a 1-D grid of tiles in a loop; axis=1 does not exist there
