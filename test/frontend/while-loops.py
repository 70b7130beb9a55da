# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def while_kernel(out_ptr, n):
    i = 0
    acc = 1
    while i < n:
        acc = acc * 2
        i += 1
    tl.store(out_ptr, acc)

# Every name assigned in the body is carried (in first-assignment order); the
# condition is evaluated in the before region on the carried values.
# CHECK-LABEL: tile.func @while_kernel
# CHECK:       %[[I0:.*]] = arith.constant 0 : i32
# CHECK-NEXT:  %[[A0:.*]] = arith.constant 1 : i32
# CHECK-NEXT:  %acc, %i = scf.while (%acc_1 = %[[A0]], %i_1 = %[[I0]]) : (i32, i32) -> (i32, i32) {
# CHECK-NEXT:    %[[C:.*]] = tile.cmp "lt", %i_1, %n : i32, !tile.scalar -> i1
# CHECK-NEXT:    scf.condition(%[[C]]) %acc_1, %i_1 : i32, i32
# CHECK-NEXT:  } do {
# CHECK-NEXT:  ^bb0(%acc_2: i32, %i_2: i32):
# CHECK:         %acc_3 = tile.mul %acc_2, %{{.*}} : i32, i32 -> i32
# CHECK:         %i_3 = tile.add %i_2, %{{.*}} : i32, i32 -> i32
# CHECK-NEXT:    scf.yield %acc_3, %i_3 : i32, i32
# CHECK-NEXT:  }
# CHECK-NEXT:  tile.store %acc, %out_ptr : i32, !tile.ptr
