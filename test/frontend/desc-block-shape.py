# `desc.block_shape[d]` on a descriptor (made on the host or in the kernel) is
# one op, tile.desc_block_size, a constexpr; the emitted kernel spells it as
# written. An index that is no integer literal below the rank is refused.
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
# RUN: sed -e 's/block_shape\[1\]/block_shape[2]/' %s > %t.py
# RUN: not overlap-opt %t.py 2>&1 | filecheck %s --check-prefix=RANK
import triton
import triton.language as tl


@triton.jit
def tile_sum(x_desc, out_ptr):
    BM: tl.constexpr = x_desc.block_shape[0]
    x = x_desc.load([tl.program_id(0) * BM, 0])
    width = x_desc.block_shape[1]
    tl.store(out_ptr + tl.program_id(0) * BM + tl.arange(0, BM), tl.sum(x, axis=1) / width)

# CHECK:      %[[BM:.*]] = tile.desc_block_size %x_desc[0 : i64] : !tile.desc<2>
# CHECK-NEXT: %BM = tile.retype %[[BM]] : !tile.constexpr -> !tile.constexpr
# CHECK:      %width = tile.desc_block_size %x_desc[1 : i64] : !tile.desc<2>
# CHECK-NOT:  tile.attr

# EMIT:      BM: tl.constexpr = x_desc.block_shape[0]
# EMIT:      width = x_desc.block_shape[1]

# RANK: desc-block-shape.py.tmp.py:16: unsupported descriptor block_shape index (write `block_shape[d]` with d an integer literal below the descriptor's rank 2): `x_desc.block_shape[2]`
