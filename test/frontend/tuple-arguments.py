# Tuple and list literals passed to builtins stay one value (tile.tuple), the
# brackets the user wrote kept; nested literals nest.
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
import triton
import triton.language as tl


@triton.jit
def shapes(x_ptr, y_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    z = tl.reshape(x, (BLOCK // 2, 2))
    z = tl.permute(z, [1, 0])
    z = tl.reshape(z, (BLOCK,))
    tl.store(y_ptr + tl.arange(0, BLOCK), z)

# CHECK:      %[[HALF:.*]] = tile.floordiv %BLOCK, %{{.*}}
# CHECK:      %[[SHAPE:.*]] = tile.tuple(%[[HALF]], %{{.*}}) : i32, i32
# CHECK-NEXT: %z = tile.call "tl.reshape"(%x, %[[SHAPE]])
# CHECK:      %[[PERM:.*]] = tile.tuple(%{{.*}}, %{{.*}}) {list} : i32, i32
# CHECK-NEXT: %z_1 = tile.call "tl.permute"(%z, %[[PERM]])
# CHECK:      tile.tuple(%BLOCK) : !tile.constexpr

# EMIT:       z = tl.reshape(x, (BLOCK // 2, 2))
# EMIT-NEXT:  z = tl.permute(z, [1, 0])
# EMIT-NEXT:  z = tl.reshape(z, (BLOCK,))
