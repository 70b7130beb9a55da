# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def desc_kernel(a_ptr, c_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[stride_m, 1], block_shape=[BLOCK_M, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_m, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    tile_a = a_desc.load([off_m, 0])
    c_desc.store([off_m, 0], tile_a)

# CHECK-LABEL: tile.func @desc_kernel
# CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : i32
# CHECK-NEXT:  %a_desc = tile.make_tensor_descriptor %a_ptr shape[%M, %N] strides[%stride_m, %[[ONE]]] block[%BLOCK_M, %BLOCK_N] : !tile.ptr, (!tile.scalar, !tile.scalar), (!tile.scalar, i32), (!tile.constexpr, !tile.constexpr) -> !tile.desc<2>
# CHECK:       %c_desc = tile.make_tensor_descriptor %c_ptr
# CHECK:       %off_m = tile.mul %{{.*}}, %BLOCK_M : i32, !tile.constexpr -> i32
# CHECK-NEXT:  %[[Z:.*]] = arith.constant 0 : i32
# CHECK-NEXT:  %tile_a = tile.desc_load %a_desc[%off_m, %[[Z]]] : !tile.desc<2>, i32, i32 -> !tile.any
# CHECK-NEXT:  %[[Z2:.*]] = arith.constant 0 : i32
# CHECK-NEXT:  tile.desc_store %tile_a, %c_desc[%off_m, %[[Z2]]] : !tile.any, !tile.desc<2>, i32, i32
# CHECK-NEXT:  tile.return
