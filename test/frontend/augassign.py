# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def aug_kernel(a_ptr, out_ptr, K, stride, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a_ptrs = a_ptr + offs
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    acc += tl.load(a_ptrs)
    a_ptrs += stride
    acc *= 2.0
    acc -= 1.0
    tl.store(out_ptr + offs, acc)

# `p += s` on a pointer is tile.addptr, on an accumulator the binary op; each
# update gets a fresh SSA name derived from the variable.
# CHECK-LABEL: tile.func @aug_kernel
# CHECK:       %a_ptrs = tile.addptr %a_ptr, %offs
# CHECK-NEXT:  %acc = tile.zeros[%BLOCK] {dtype = f32} : !tile.constexpr -> !tile.block<?xf32>
# CHECK-NEXT:  %[[L:.*]] = tile.load %a_ptrs
# CHECK-NEXT:  %acc_1 = tile.add %acc, %[[L]] : !tile.block<?xf32>, !tile.any -> !tile.any
# CHECK-NEXT:  %a_ptrs_1 = tile.addptr %a_ptrs, %stride : !tile.block<?x!tile.ptr>, !tile.scalar -> !tile.block<?x!tile.ptr>
# CHECK-NEXT:  arith.constant 2.000000e+00 : f32
# CHECK-NEXT:  %acc_2 = tile.mul %acc_1
# CHECK-NEXT:  arith.constant 1.000000e+00 : f32
# CHECK-NEXT:  %acc_3 = tile.sub %acc_2
# CHECK:       tile.store %acc_3,
