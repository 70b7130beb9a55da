# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def square(x):
    return x * x


@triton.jit
def divmod_helper(a, b):
    return a // b, a % b


@triton.jit
def calls_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    sq = square(x)
    q, r = divmod_helper(n, 3)
    lo = min(q, r)
    hi = max(q, 7)
    h = x.to(tl.float16)
    bits = x.to(tl.int32, bitcast=True)
    w = tl.where(offs < n, x, 0.0)
    e = tl.math.exp2(x)
    s = tl.sigmoid(x)
    ninf = float("-inf")
    m = tl.maximum(x, ninf)
    tl.store(out_ptr + offs, sq + h + w + e + s + m + lo + hi)

# jit helpers: parameters are !tile.any, results are the returned tuple.
# CHECK:       tile.func @square(%x: !tile.any) -> !tile.any
# CHECK-NEXT:    %[[SQ:.*]] = tile.mul %x, %x : !tile.any, !tile.any -> !tile.any
# CHECK-NEXT:    tile.return %[[SQ]] : !tile.any
# CHECK:       tile.func @divmod_helper(%a: !tile.any, %b: !tile.any) -> (!tile.any, !tile.any)
# CHECK:         tile.return %{{.*}}, %{{.*}} : !tile.any, !tile.any
# CHECK-LABEL: tile.func @calls_kernel
# CHECK:       %sq = tile.call_jit @square(%x) : (!tile.any) -> !tile.any
# CHECK-NEXT:  %[[THREE:.*]] = arith.constant 3 : i32
# CHECK-NEXT:  %q, %r = tile.call_jit @divmod_helper(%n, %[[THREE]]) : (!tile.scalar, i32) -> (!tile.any, !tile.any)
# CHECK-NEXT:  %lo = tile.call "min"(%q, %r) : (!tile.any, !tile.any) -> !tile.any
# CHECK-NEXT:  %[[SEVEN:.*]] = arith.constant 7 : i32
# CHECK-NEXT:  %hi = tile.call "max"(%q, %[[SEVEN]]) : (!tile.any, i32) -> !tile.any
# CHECK-NEXT:  %h = tile.cast %x {dtype = f16} : !tile.any -> !tile.any
# CHECK-NEXT:  %bits = tile.cast %x {dtype = i32, bitcast = true} : !tile.any -> !tile.any
# CHECK-NEXT:  %[[MASK:.*]] = tile.cmp "lt", %offs, %n
# CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
# CHECK-NEXT:  %w = tile.where %[[MASK]], %x, %[[ZERO]] : !tile.block<?xi1>, !tile.any, f32 -> !tile.any
# CHECK-NEXT:  %e = tile.call "tl.math.exp2"(%x) : (!tile.any) -> !tile.any
# CHECK-NEXT:  %s = tile.call "tl.sigmoid"(%x) : (!tile.any) -> !tile.any
# float("-inf") is an f32 constant (printed as its bit pattern).
# CHECK-NEXT:  %[[NINF:.*]] = arith.constant 0xff800000 : f32
# CHECK-NEXT:  %m = tile.call "tl.maximum"(%x, %[[NINF]]) : (!tile.any, f32) -> !tile.any
