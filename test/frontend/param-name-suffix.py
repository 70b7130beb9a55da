# Parameter names that end in `_<digits>`: xDSL strips a trailing `_N` from SSA
# name hints, so the verbatim names live in `param_names`; the emitted kernel
# keeps them (keyword launches such as `BLOCK_2=64` keep working), also after
# a print/parse round trip, and `a` next to `a_1` is not a duplicate.
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=PY
# RUN: overlap-opt %s | overlap-opt -t triton | filecheck %s --check-prefix=PY
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n_1, BLOCK_2: tl.constexpr):
    tl.store(x_ptr, n_1 + BLOCK_2)


@triton.jit
def k2(a, a_1):
    tl.store(a, a_1)

# CHECK: tile.func @k({{.*}}) attributes {param_names = ["x_ptr", "n_1", "BLOCK_2"]
# CHECK: tile.func @k2({{.*}}) attributes {param_names = ["a", "a_1"]
# PY: def k(x_ptr, n_1, BLOCK_2: tl.constexpr):
# PY-NEXT: tl.store(x_ptr, n_1 + BLOCK_2)
# PY: def k2(a, a_1):
# PY-NEXT: tl.store(a, a_1)
