# Block pointers are lowered to pointer arithmetic as the kernel is imported:
# a load or store through one becomes `base + (off_d + tl.arange(0, B_d))[...] * stride_d`
# summed over the dims, masked `0 <= index < shape` on the dims of boundary_check,
# `other` from padding_option. A loop carries only the offsets it advances; a dim
# it does not advance reads the offset from before the loop.
# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def bp_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_block = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, pid_n * BLOCK_N), (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_block, boundary_check=(0, 1))
        b = tl.load(b_block, boundary_check=(1,), eviction_policy="evict_last")
        acc += tl.dot(a, b)
        a_block = tl.advance(a_block, (0, BLOCK_K))
        b_block = tl.advance(b_block, (BLOCK_K, 0))
    c_block = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (pid_m * BLOCK_M, pid_n * BLOCK_N),
                                (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_block, acc)

# CHECK-LABEL: tile.func @bp_matmul
# CHECK:       %a_block_off0 = tile.mul %pid_m, %BLOCK_M
# CHECK:       %b_block_off1 = tile.mul %pid_n, %BLOCK_N
# CHECK:       scf.for %k = {{.*}} iter_args(%acc_2 = %{{.*}}, %a_block_off1_1 = %{{.*}}, %b_block_off0_1 = %{{.*}}) -> (!tile.any, i32, i32)
# CHECK:         %[[ROWS:.*]] = tile.add %a_block_off0, %{{.*}} : i32, !tile.block<?xi32>
# CHECK:         %[[COLS:.*]] = tile.add %a_block_off1_1, %{{.*}} : i32, !tile.block<?xi32>
# CHECK:         tile.mul %{{.*}}, %stride_am
# CHECK:         tile.mul %{{.*}}, %stride_ak
# CHECK:         tile.cmp "ge", %[[ROWS]]
# CHECK:         tile.cmp "lt", %[[ROWS]], %M
# CHECK:         tile.cmp "lt", %[[COLS]], %K
# CHECK:         %a = tile.load %{{.*}} mask %{{.*}} : !tile.block<?x?xi1> : !tile.block<?x?x!tile.ptr> -> !tile.any
# Only dim 1 of B is checked; the load keeps its other options.
# CHECK:         %[[BCOLS:.*]] = tile.add %b_block_off1, %{{.*}}
# CHECK-NOT:     tile.cmp "lt", %{{.*}}, %K
# CHECK:         tile.cmp "lt", %[[BCOLS]], %N
# CHECK:         %b = tile.load %{{.*}} mask %{{.*}} {static_kwargs = {eviction_policy = "evict_last"}}
# CHECK:         %a_block_off1_2 = tile.add %a_block_off1_1, %BLOCK_K
# CHECK:         %b_block_off0_2 = tile.add %b_block_off0_1, %BLOCK_K
# CHECK:         scf.yield %acc_3, %a_block_off1_2, %b_block_off0_2
# No boundary_check: no mask.
# CHECK:       tile.store %acc_1, %{{[0-9]+}} : !tile.any, !tile.block<?x?x!tile.ptr>
# CHECK-NOT:   make_block_ptr


@triton.jit
def bp_scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # one dim, a while loop, NaN padding
    x_block = tl.make_block_ptr(x_ptr, (n,), (1,), (tl.program_id(0) * BLOCK,), (BLOCK,), (0,))
    y_block = tl.make_block_ptr(y_ptr, (n,), (1,), (tl.program_id(0) * BLOCK,), (BLOCK,), (0,))
    i = 0
    while i < 2:
        x = tl.load(x_block, boundary_check=(0,), padding_option="nan")
        tl.store(y_block, x * 2, boundary_check=(0,))
        x_block = tl.advance(x_block, (BLOCK * tl.num_programs(0),))
        y_block = tl.advance(y_block, (BLOCK * tl.num_programs(0),))
        i += 1

# CHECK-LABEL: tile.func @bp_scale
# CHECK:       scf.while (%x_block_off0_2 = %x_block_off0, %y_block_off0_2 = %y_block_off0, %i_1 = %{{.*}})
# CHECK:         %[[X:.*]] = tile.add %x_block_off0_3, %{{.*}} : i32, !tile.block<?xi32>
# A unit stride is not multiplied out.
# CHECK-NEXT:    tile.addptr %x_ptr, %[[X]]
# CHECK:         %[[NAN:.*]] = arith.constant 0x7fc00000 : f32
# CHECK:         %x = tile.load %{{.*}} mask %{{.*}} : !tile.block<?xi1> other %[[NAN]] : f32 : !tile.block<?x!tile.ptr> -> !tile.any
# CHECK:         tile.store %{{.*}}, %{{.*}} mask %{{.*}} : !tile.block<?xi1>
# CHECK:         scf.yield %x_block_off0_{{[0-9]+}}, %y_block_off0_{{[0-9]+}}, %i_{{[0-9]+}}
