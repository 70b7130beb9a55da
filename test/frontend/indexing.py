# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def index_kernel(x_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, 16)
    col = rm[:, None]
    row = rn[None, :]
    e0 = tl.expand_dims(rm, 0)
    e1 = tl.expand_dims(rn, axis=1)
    offs = col * 16 + row
    tl.store(x_ptr + offs, offs)

# CHECK-LABEL: tile.func @index_kernel
# CHECK:       %rm = tile.arange %{{.*}}, %BLOCK_M : i32, !tile.constexpr -> !tile.block<?xi32>
# Literal bounds give a static dim.
# CHECK:       %rn = tile.arange %{{.*}}, %{{.*}} : i32, i32 -> !tile.block<16xi32>
# CHECK-NEXT:  %col = tile.expand_dims %rm, 1 : i64 : !tile.block<?xi32> -> !tile.block<?x1xi32>
# CHECK-NEXT:  %row = tile.expand_dims %rn, 0 : i64 : !tile.block<16xi32> -> !tile.block<1x16xi32>
# CHECK:       %e0 = tile.expand_dims %rm, 0 : i64 : !tile.block<?xi32> -> !tile.block<1x?xi32>
# CHECK-NEXT:  %e1 = tile.expand_dims %rn, 1 : i64 : !tile.block<16xi32> -> !tile.block<16x1xi32>
# Broadcasting [?x1] with [1x16] gives [?x16].
# CHECK:       %offs = tile.add %{{.*}}, %row : !tile.block<?x1xi32>, !tile.block<1x16xi32> -> !tile.block<?x16xi32>
# CHECK-NEXT:  tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?x16xi32> -> !tile.block<?x16x!tile.ptr>
