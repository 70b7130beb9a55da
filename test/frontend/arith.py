# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def arith_kernel(out_ptr, a, b, f):
    s = a + b
    d = a - b
    m = a * b
    q = a / b
    fd = a // b
    r = a % b
    x = a & b
    o = a | b
    e = a ^ b
    sl = a << 2
    sr = a >> 1
    n = -a
    inv = ~a
    nt = not a
    lt = a < b
    le = a <= b
    gt = a > b
    ge = a >= b
    eq = a == b
    ne = a != b
    both = lt and gt
    either = lt or gt
    fl = f * 2.5
    neg = -3
    tl.store(out_ptr, s + d + m + fl + neg)

# CHECK-LABEL: tile.func @arith_kernel(%out_ptr: !tile.ptr, %a: !tile.scalar, %b: !tile.scalar, %f: !tile.scalar)
# CHECK-NEXT:  %s = tile.add %a, %b : !tile.scalar, !tile.scalar -> !tile.scalar
# CHECK-NEXT:  %d = tile.sub %a, %b
# CHECK-NEXT:  %m = tile.mul %a, %b
# CHECK-NEXT:  %q = tile.truediv %a, %b
# CHECK-NEXT:  %fd = tile.floordiv %a, %b
# CHECK-NEXT:  %r = tile.mod %a, %b
# CHECK-NEXT:  %x = tile.and %a, %b
# CHECK-NEXT:  %o = tile.or %a, %b
# CHECK-NEXT:  %e = tile.xor %a, %b
# CHECK-NEXT:  %[[TWO:.*]] = arith.constant 2 : i32
# CHECK-NEXT:  %sl = tile.shl %a, %[[TWO]] : !tile.scalar, i32 -> !tile.scalar
# CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : i32
# CHECK-NEXT:  %sr = tile.shr %a, %[[ONE]]
# CHECK-NEXT:  %n = tile.neg %a : !tile.scalar -> !tile.scalar
# CHECK-NEXT:  %inv = tile.invert %a : !tile.scalar -> !tile.scalar
# CHECK-NEXT:  %nt = tile.not %a : !tile.scalar -> i1
# CHECK-NEXT:  %lt = tile.cmp "lt", %a, %b : !tile.scalar, !tile.scalar -> i1
# CHECK-NEXT:  %le = tile.cmp "le", %a, %b
# CHECK-NEXT:  %gt = tile.cmp "gt", %a, %b
# CHECK-NEXT:  %ge = tile.cmp "ge", %a, %b
# CHECK-NEXT:  %eq = tile.cmp "eq", %a, %b
# CHECK-NEXT:  %ne = tile.cmp "ne", %a, %b
# CHECK-NEXT:  %both = tile.logical_and %lt, %gt : i1, i1 -> i1
# CHECK-NEXT:  %either = tile.logical_or %lt, %gt : i1, i1 -> i1
# CHECK-NEXT:  %[[F:.*]] = arith.constant 2.500000e+00 : f32
# CHECK-NEXT:  %fl = tile.mul %f, %[[F]] : !tile.scalar, f32 -> !tile.scalar
# A negative literal folds into one constant, not a tile.neg.
# CHECK-NEXT:  %[[NEG:.*]] = arith.constant -3 : i32
# CHECK-NOT:   tile.neg
# CHECK:       tile.add %{{.*}}, %[[NEG]] : !tile.scalar, i32 -> !tile.scalar
