# A module without chunk sync ops is left exactly as it is (plan or not).
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' > %t.before.mlir
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p lower-chunk-to-tile > %t.after.mlir
# RUN: diff %t.before.mlir %t.after.mlir
# RUN: overlap-opt %s -p lower-chunk-to-tile -t triton | filecheck %s
import triton
import triton.language as tl


@triton.jit
def tile_copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))

# CHECK:     def tile_copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
# CHECK-NOT: syn_
