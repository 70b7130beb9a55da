# order=none (the default) leaves the module unchanged and needs no plan.
# RUN: overlap-opt %s > %t.plain
# RUN: overlap-opt %s -p tile-reorder > %t.none
# RUN: diff %t.plain %t.none
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'tile-reorder{order=none group=8 axis=2}' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def tile_copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))

# CHECK-LABEL: tile.func @tile_copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes
# CHECK-NEXT:  tile.program_id 0 : i32
# CHECK-NOT:   syn_
