# RUN: overlap-opt %s -p 'specialize{BLOCK_M=32 BLOCK_N=16}' | filecheck %s
# RUN: overlap-opt %s -p 'specialize{BLOCK_M=32 BLOCK_N=16}' -t triton | filecheck %s --check-prefix=PY
# RUN: overlap-opt %s -p 'specialize{BLOCK=8}' -t triton | filecheck %s --check-prefix=SHARED
import triton
import triton.language as tl


@triton.jit
def tile_sum(a, BLOCK: tl.constexpr):
    return tl.sum(a, axis=0) * BLOCK


@triton.jit
def two_kernel(x_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    tl.store(x_ptr + rm[:, None] * BLOCK_N + rn[None, :], 0)


@triton.jit
def other_kernel(y_ptr, BLOCK: tl.constexpr, BLOCK_N: tl.constexpr):
    v = tile_sum(tl.load(y_ptr + tl.arange(0, BLOCK_N)), BLOCK)
    tl.store(y_ptr, v)

# Two bindings: every function with a parameter of that name is specialized;
# functions without it are untouched.
# CHECK-LABEL: tile.func @tile_sum(%a: !tile.any, %BLOCK: !tile.constexpr)
# CHECK-NOT:   tl.static_assert
# CHECK-LABEL: tile.func @two_kernel
# CHECK-DAG:   %[[N:.*]] = arith.constant 16 : i32
# CHECK-DAG:   %[[M:.*]] = arith.constant 32 : i32
# CHECK-DAG:   tile.cmp "eq", %BLOCK_N, %[[N]] : !tile.constexpr, i32 -> i1
# CHECK-DAG:   tile.cmp "eq", %BLOCK_M, %[[M]] : !tile.constexpr, i32 -> i1
# CHECK-LABEL: tile.func @other_kernel
# CHECK-NEXT:  %[[N2:.*]] = arith.constant 16 : i32
# CHECK-NEXT:  tile.cmp "eq", %BLOCK_N, %[[N2]]
# CHECK-NEXT:  tile.call "tl.static_assert"
# CHECK-NOT:   arith.constant 32

# PY-LABEL: def two_kernel(x_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
# PY-DAG:       tl.static_assert(BLOCK_N == 16)
# PY-DAG:       tl.static_assert(BLOCK_M == 32)
# PY:           rm = tl.arange(0, 32)
# PY-NEXT:      rn = tl.arange(0, 16)
# PY-NEXT:      tl.store(x_ptr + rm[:, None] * 16 + rn[None, :], 0)
# PY-LABEL: def other_kernel(y_ptr, BLOCK: tl.constexpr, BLOCK_N: tl.constexpr):
# PY-NEXT:      # inserted by specialize
# PY-NEXT:      tl.static_assert(BLOCK_N == 16)
# PY-NEXT:      tmp = tl.load(y_ptr + tl.arange(0, 16))
# PY-NEXT:      v = tile_sum(tmp, BLOCK)

# A name that is a parameter of both a helper and a kernel is bound in both.
# SHARED-LABEL: def tile_sum(a, BLOCK: tl.constexpr):
# SHARED-NEXT:      # inserted by specialize
# SHARED-NEXT:      tl.static_assert(BLOCK == 8)
# SHARED-NEXT:      return tl.sum(a, axis=0) * 8
# SHARED-LABEL: def two_kernel(
# SHARED-NOT:       static_assert
# SHARED-LABEL: def other_kernel(y_ptr, BLOCK: tl.constexpr, BLOCK_N: tl.constexpr):
# SHARED-NEXT:      # inserted by specialize
# SHARED-NEXT:      tl.static_assert(BLOCK == 8)
# SHARED:           v = tile_sum(tmp, 8)
