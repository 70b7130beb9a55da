# A reduce-scatter of a tensor stored through a descriptor made on the host:
# each store announces `c_desc.block_shape[0]` rows. The kernel reads that
# block size itself at its top (`BM = c_desc.block_shape[0]`), so the analysis
# uses that op and adds only the dim it lacks.
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_desc world=2}' -p chunk-dependency-analysis | filecheck %s
import triton
import triton.language as tl


@triton.jit
def row_copy(x_ptr, c_desc, BLOCK_N: tl.constexpr):
    BM = c_desc.block_shape[0]
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BLOCK_N
    rows = off_m + tl.arange(0, 16)
    x = tl.load(x_ptr + rows[:, None] * BLOCK_N + tl.arange(0, BLOCK_N)[None, :])
    c_desc.store([off_m, off_n], x)

# CHECK:      tile.func @row_copy(
# CHECK-NEXT:   %[[COLS:.*]] = tile.desc_block_size %c_desc[1 : i64] : !tile.desc<2>
# CHECK-NEXT:   %BM = tile.desc_block_size %c_desc[0 : i64] : !tile.desc<2>
# CHECK-NOT:    tile.desc_block_size
# CHECK:        tile.desc_store %x, %c_desc[%off_m, %off_n] {chunk.access = {plan = @rs, tensor = "c_desc", dim = 0 : i64, role = "write", lo = "(pid0 * c_desc__block_shape_0)", extent = "c_desc__block_shape_0", loops = 0 : i64, invariant = 0 : i64}}
