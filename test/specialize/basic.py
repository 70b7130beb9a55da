# RUN: overlap-opt %s -p 'specialize{BLOCK=64}' | filecheck %s
# RUN: overlap-opt %s -p 'specialize{BLOCK=64}' -t triton | filecheck %s --check-prefix=PY
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

# The parameter stays in the signature; its uses become the constant, guarded
# by a static_assert tagged with its origin.
# CHECK-LABEL: tile.func @copy_kernel(%x_ptr: !tile.ptr, %out_ptr: !tile.ptr, %n: !tile.scalar, %BLOCK: !tile.constexpr)
# CHECK-NEXT:  %[[C:.*]] = arith.constant 64 : i32
# CHECK-NEXT:  %[[EQ:.*]] = tile.cmp "eq", %BLOCK, %[[C]] : !tile.constexpr, i32 -> i1
# CHECK-NEXT:  tile.call "tl.static_assert"(%[[EQ]]) {tile.origin = "specialize"} : (i1) -> ()
# CHECK-NEXT:  tile.program_id 0
# CHECK-NEXT:  tile.mul %{{.*}}, %[[C]] : i32, i32 -> i32
# CHECK:       tile.arange %{{.*}}, %[[C]] : i32, i32
# CHECK-NOT:   %BLOCK,
# CHECK:       tile.return

# PY:      def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
# PY-NEXT:     # inserted by specialize
# PY-NEXT:     tl.static_assert(BLOCK == 64)
# PY-NEXT:     offs = tl.program_id(axis=0) * 64 + tl.arange(0, 64)
# PY-NOT:      BLOCK
