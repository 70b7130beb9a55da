# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def tensors_kernel(x_ptr, out_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(1)
    grid_m = tl.num_programs(0)
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rm[:, None] * BLOCK_N + rn[None, :])
    z = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    f = tl.full([BLOCK_M, BLOCK_N], 1.5, dtype=tl.float32)
    t = tl.trans(x)
    tt = x.T
    row_max = tl.max(x, axis=1)
    col_sum = tl.sum(x, axis=0, keep_dims=True)
    total = tl.sum(x)
    am = tl.argmax(x, 1)
    rs = x.sum(axis=1)
    tl.store(out_ptr + rm, row_max + col_sum + total + am + rs + z + f + t + tt + pid_m + pid_n + grid_m)

# CHECK-LABEL: tile.func @tensors_kernel
# CHECK-NEXT:  %pid_m = tile.program_id 0 : i32
# CHECK-NEXT:  %pid_n = tile.program_id 1 : i32
# CHECK-NEXT:  %grid_m = tile.num_programs 0 : i32
# CHECK:       tile.addptr %{{.*}}, %{{.*}} : !tile.block<?x1x!tile.ptr>, !tile.block<1x?xi32> -> !tile.block<?x?x!tile.ptr>
# CHECK-NEXT:  %x = tile.load
# CHECK-NEXT:  %z = tile.zeros[%BLOCK_M, %BLOCK_N] {dtype = f32} : !tile.constexpr, !tile.constexpr -> !tile.block<?x?xf32>
# CHECK-NEXT:  %[[V:.*]] = arith.constant 1.500000e+00 : f32
# CHECK-NEXT:  %f = tile.splat %[[V]] to[%BLOCK_M, %BLOCK_N] {dtype = f32} : f32, !tile.constexpr, !tile.constexpr -> !tile.block<?x?xf32>
# CHECK-NEXT:  %t = tile.trans %x
# CHECK-NEXT:  %tt = tile.trans %x
# CHECK-NEXT:  %row_max = tile.reduce "max" %x {axis = 1 : i64} : !tile.any -> !tile.any
# CHECK-NEXT:  %col_sum = tile.reduce "sum" %x {axis = 0 : i64, keep_dims = true}
# CHECK-NEXT:  %total = tile.reduce "sum" %x : !tile.any -> !tile.any
# CHECK:       %am = tile.reduce "argmax" %x {axis = 1 : i64}
# The method form x.sum(axis=1) is the same reduction.
# CHECK-NEXT:  %rs = tile.reduce "sum" %x {axis = 1 : i64}
