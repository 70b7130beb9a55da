# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def params_kernel(x_ptr, out_ptr, n: tl.int32, scale, BLOCK: tl.constexpr, FLAG: tl.constexpr = True, MODE: tl.constexpr = "fast"):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x * scale, mask=offs < n)

# Pointer parameters (used as `p + offs` / loaded from) are !tile.ptr, other
# runtime parameters !tile.scalar, tl.constexpr ones !tile.constexpr. Defaults
# and non-constexpr annotations are kept verbatim.
# CHECK:      builtin.module attributes {tile.source = "parameters.py"} {
# CHECK-NEXT:   tile.func @params_kernel(%x_ptr: !tile.ptr, %out_ptr: !tile.ptr, %n: !tile.scalar, %scale: !tile.scalar, %BLOCK: !tile.constexpr, %FLAG: !tile.constexpr, %MODE: !tile.constexpr)
# CHECK-SAME:   decorators = ["triton.jit"]
# CHECK-SAME:   defaults = {FLAG = "True", MODE = "'fast'"}
# CHECK-SAME:   arg_annotations = {n = "tl.int32"}
# CHECK:        %offs = tile.arange %{{.*}}, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
# CHECK-NEXT:   %{{.*}} = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
# CHECK-NEXT:   %x = tile.load %{{.*}} : !tile.block<?x!tile.ptr> -> !tile.any
# CHECK:        %[[PROD:.*]] = tile.mul %x, %scale : !tile.any, !tile.scalar -> !tile.any
# CHECK-NEXT:   %[[MASK:.*]] = tile.cmp "lt", %offs, %n : !tile.block<?xi32>, !tile.scalar -> !tile.block<?xi1>
# CHECK-NEXT:   tile.store %[[PROD]], %{{.*}} mask %[[MASK]] : !tile.block<?xi1> : !tile.any, !tile.block<?x!tile.ptr>
# CHECK-NEXT:   tile.return
