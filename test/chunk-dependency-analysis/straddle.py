# A plan whose chunks (25 rows) are not a multiple of the block (16 rows):
# tile 1 reads rows [16, 32), which straddle chunk 0 [0, 25) and chunk 3 [25, 50).
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=50}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=50}' -p chunk-dependency-analysis \
# RUN:   | %python %S/inputs/tile_chunks.py 0 4 BLOCK_M=16 | filecheck %s --check-prefix=RANK0
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=50}' -p chunk-dependency-analysis \
# RUN:   | %python %S/inputs/tile_chunks.py 1 4 BLOCK_M=16 | filecheck %s --check-prefix=RANK1
import triton
import triton.language as tl


@triton.jit
def copy_rows(x_ptr, y_ptr, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=(rows[:, None] < 50) & (cols[None, :] < N))
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x, mask=(rows[:, None] < 50) & (cols[None, :] < N))

# The footprint is the tile's range, whatever the chunk sizes.
# CHECK: chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 0 : i64, invariant = 0 : i64}
# CHECK: chunk.tensor "x_ptr" -> "x_ptr" shape [50, "D1"] strides ["stride_xm", "stride_x_ptr_1"]
# CHECK: chunk.chunk id 0 "x_ptr" dim 0 offset 0 size 25 src 0 dst 0
# CHECK: chunk.chunk id 3 "x_ptr" dim 0 offset 25 size 25 src 1 dst 0

# RANK0:      tile (0, 0, 0): waits ag#0[0, 25){{$}}
# RANK0-NEXT: tile (1, 0, 0): waits ag#0[0, 25) ag#3[25, 50){{$}}
# RANK0-NEXT: tile (2, 0, 0): waits ag#3[25, 50){{$}}
# RANK0-NEXT: tile (3, 0, 0): waits ag#3[25, 50){{$}}

# RANK1:      tile (0, 0, 0): waits ag#2[0, 25){{$}}
# RANK1-NEXT: tile (1, 0, 0): waits ag#2[0, 25) ag#1[25, 50){{$}}
# RANK1-NEXT: tile (2, 0, 0): waits ag#1[25, 50){{$}}
