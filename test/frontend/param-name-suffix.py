# Parameter names that end in `_<digits>` lose the suffix: xDSL strips a
# trailing `_N` from SSA name hints, so `n_1` imports (and emits) as `n`, which
# breaks keyword launches (`BLOCK_2=64`), and `def k(a, a_1)` fails with
# "duplicate argument names". Known bug, not fixed here.
# XFAIL: *
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=PY
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n_1, BLOCK_2: tl.constexpr):
    tl.store(x_ptr, n_1 + BLOCK_2)

# CHECK: tile.func @k(%x_ptr: !tile.ptr, %n_1: !tile.scalar, %BLOCK_2: !tile.constexpr)
# PY: def k(x_ptr, n_1, BLOCK_2: tl.constexpr):
