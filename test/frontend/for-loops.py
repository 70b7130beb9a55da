# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def loops_kernel(out_ptr, n, NUM_STAGES: tl.constexpr):
    total = 0
    for i in range(n):
        total += i
    for j in range(2, n):
        total += j
    for k in range(0, n, 4):
        total = total * k
    for s in tl.range(0, n, num_stages=3):
        total += s
    for t in tl.range(0, n, 2, num_stages=NUM_STAGES):
        total += t
    for u in tl.static_range(4):
        total += u
    tl.store(out_ptr, total)

# range(n): lb 0, step 1; bounds retyped to i32; the carried `total` is an iter_arg.
# CHECK-LABEL: tile.func @loops_kernel
# CHECK:       %[[ZERO:.*]] = arith.constant 0 : i32
# CHECK-NEXT:  %[[LB:.*]] = arith.constant 0 : i32
# CHECK-NEXT:  %[[STEP:.*]] = arith.constant 1 : i32
# CHECK-NEXT:  %[[UB:.*]] = tile.retype %n : !tile.scalar -> i32
# CHECK-NEXT:  %total = scf.for %i = %[[LB]] to %[[UB]] step %[[STEP]] iter_args(%total_1 = %[[ZERO]]) -> (i32) : i32 {
# CHECK-NEXT:    %total_2 = tile.add %total_1, %i : i32, i32 -> i32
# CHECK-NEXT:    scf.yield %total_2 : i32
# CHECK-NEXT:  }
# range(2, n)
# CHECK-NEXT:  %[[LB2:.*]] = arith.constant 2 : i32
# CHECK-NEXT:  %[[ST2:.*]] = arith.constant 1 : i32
# CHECK-NEXT:  %[[UB2:.*]] = tile.retype %n
# CHECK-NEXT:  %total_3 = scf.for %j = %[[LB2]] to %[[UB2]] step %[[ST2]] iter_args(%total_4 = %total) -> (i32) : i32 {
# range(0, n, 4)
# CHECK:       %[[ST3:.*]] = arith.constant 4 : i32
# CHECK-NEXT:  tile.retype %n
# CHECK-NEXT:  %total_6 = scf.for %k = %{{.*}} to %{{.*}} step %[[ST3]] iter_args(%total_7 = %total_3)
# CHECK-NEXT:    %total_8 = tile.mul %total_7, %k
# tl.range keeps its kind and literal options as attributes ...
# CHECK:       %total_9 = scf.for %s = {{.*}} iter_args(%total_10 = %total_6)
# CHECK:       } {tile.loop = "range", tile.num_stages = 3 : i64}
# ... and a constexpr option as a symbol reference to the parameter.
# CHECK:       %total_12 = scf.for %t = {{.*}} iter_args(%total_13 = %total_9)
# CHECK:       } {tile.loop = "range", tile.num_stages = @NUM_STAGES}
# CHECK:       %total_15 = scf.for %u = {{.*}} iter_args(%total_16 = %total_12)
# CHECK:       } {tile.loop = "static_range"}
# CHECK-NEXT:  tile.store %total_15, %out_ptr : i32, !tile.ptr
