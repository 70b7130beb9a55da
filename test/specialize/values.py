# RUN: overlap-opt %s -p 'specialize{EVEN=true MODE=fast}' | filecheck %s
# RUN: overlap-opt %s -p 'specialize{EVEN=true MODE=fast}' -t triton | filecheck %s --check-prefix=PY
import triton
import triton.language as tl


@triton.jit
def values_kernel(x_ptr, n, EVEN: tl.constexpr, MODE: tl.constexpr = "slow"):
    v = tl.load(x_ptr)
    if EVEN:
        v = v * 2
    if MODE == "fast":
        v = v + 1
    tl.store(x_ptr, v)

# `true` binds an i1 constant, a non-number a string literal.
# CHECK-LABEL: tile.func @values_kernel
# CHECK-SAME:  defaults = {MODE = "'slow'"}
# CHECK-DAG:   %[[S:.*]] = tile.literal "fast"
# CHECK-DAG:   tile.cmp "eq", %MODE, %[[S]] : !tile.constexpr, !tile.constexpr -> i1
# CHECK-DAG:   %[[T:.*]] = arith.constant true
# CHECK-DAG:   tile.cmp "eq", %EVEN, %[[T]] : !tile.constexpr, i1 -> i1
# CHECK:       tile.retype %[[T]] : i1 -> i1
# CHECK:       tile.cmp "eq", %[[S]], %{{.*}} : !tile.constexpr, !tile.constexpr -> i1

# PY-LABEL: def values_kernel(x_ptr, n, EVEN: tl.constexpr, MODE: tl.constexpr = 'slow'):
# PY-DAG:       tl.static_assert(MODE == 'fast')
# PY-DAG:       tl.static_assert(EVEN == True)
# PY:           if True:
# PY:           if 'fast' == 'fast':
