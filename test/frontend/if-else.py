# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def if_kernel(out_ptr, n, MODE: tl.constexpr):
    x = 1
    if n > 4:
        x = 2
        y = 5
    else:
        x = 3
        y = 6
    if MODE == "double":
        x = x * 2
    if n == 0:
        tl.store(out_ptr, 0)
    tl.store(out_ptr, x + y)

# Names assigned in both branches become scf.if results.
# CHECK-LABEL: tile.func @if_kernel
# CHECK:       %[[C:.*]] = tile.cmp "gt", %n, %{{.*}} : !tile.scalar, i32 -> i1
# CHECK-NEXT:  %x, %y = scf.if %[[C]] -> (i32, i32) {
# CHECK-NEXT:    %[[T1:.*]] = arith.constant 2 : i32
# CHECK-NEXT:    %[[T2:.*]] = arith.constant 5 : i32
# CHECK-NEXT:    scf.yield %[[T1]], %[[T2]] : i32, i32
# CHECK-NEXT:  } else {
# CHECK-NEXT:    %[[E1:.*]] = arith.constant 3 : i32
# CHECK-NEXT:    %[[E2:.*]] = arith.constant 6 : i32
# CHECK-NEXT:    scf.yield %[[E1]], %[[E2]] : i32, i32
# CHECK-NEXT:  }
# A constexpr string condition compares against a tile.literal; the name
# assigned in one branch only yields its old value from the other.
# CHECK-NEXT:  %[[S:.*]] = tile.literal "double"
# CHECK-NEXT:  %[[C2:.*]] = tile.cmp "eq", %MODE, %[[S]] : !tile.constexpr, !tile.constexpr -> i1
# CHECK-NEXT:  %x_1 = scf.if %[[C2]] -> (i32) {
# CHECK:         %x_2 = tile.mul %x, %{{.*}}
# CHECK-NEXT:    scf.yield %x_2 : i32
# CHECK-NEXT:  } else {
# CHECK-NEXT:    scf.yield %x : i32
# CHECK-NEXT:  }
# An if without results.
# CHECK:       scf.if %{{.*}} {
# CHECK-NEXT:    arith.constant 0
# CHECK-NEXT:    tile.store
# CHECK:       tile.add %x_1, %y : i32, i32 -> i32
