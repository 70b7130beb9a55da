# RUN: overlap-opt %s | filecheck %s
# `p is None` / `p is not None` on a parameter Triton specializes (a parameter
# passed None at launch): a `tile.cmp "is"/"isnot"` against `tile.literal
# none`, decided by Triton when it compiles, so no pass folds it.
import triton
import triton.language as tl


@triton.jit
def maybe_scale(v, scale_ptr):
    if scale_ptr is not None:
        v = v * tl.load(scale_ptr)
    return v


@triton.jit
def optional_args(x_ptr, bias_ptr, res_ptr, out_ptr, n, ACT: tl.constexpr = None, BLOCK: tl.constexpr = 16):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if bias_ptr is not None:
        x += tl.load(bias_ptr + offs, mask=offs < n)
    HAS_RES = res_ptr is not None
    if HAS_RES:
        x += tl.load(res_ptr + offs, mask=offs < n)
    if None is not ACT:
        x = tl.maximum(x, 0.0)
    both = HAS_RES and bias_ptr is None
    tl.store(out_ptr + offs, x, mask=both)

# A jit helper's parameter may be tested too.
# CHECK-LABEL: tile.func @maybe_scale
# CHECK:       %[[N0:.*]] = tile.literal none
# CHECK-NEXT:  %[[T0:.*]] = tile.cmp "isnot", %scale_ptr, %[[N0]] : !tile.ptr, !tile.constexpr -> i1
# CHECK-NEXT:  scf.if %[[T0]]

# CHECK-LABEL: tile.func @optional_args
# CHECK:       %[[N1:.*]] = tile.literal none
# CHECK-NEXT:  %[[T1:.*]] = tile.cmp "isnot", %bias_ptr, %[[N1]] : !tile.ptr, !tile.constexpr -> i1
# CHECK-NEXT:  %x_1 = scf.if %[[T1]] -> (!tile.any) {
# CHECK:         tile.load
# CHECK:       %[[N2:.*]] = tile.literal none
# CHECK-NEXT:  %HAS_RES = tile.cmp "isnot", %res_ptr, %[[N2]] : !tile.ptr, !tile.constexpr -> i1
# CHECK-NEXT:  %x_3 = scf.if %HAS_RES -> (!tile.any) {
# `None is not ACT` is the same test with None on the right.
# CHECK:       %[[T3:.*]] = tile.cmp "isnot", %ACT, %{{.*}} : !tile.constexpr, !tile.constexpr -> i1
# CHECK-NEXT:  %x_5 = scf.if %[[T3]] -> (!tile.any) {
# CHECK:       %[[T4:.*]] = tile.cmp "is", %bias_ptr, %{{.*}} : !tile.ptr, !tile.constexpr -> i1
# CHECK-NEXT:  %both = tile.logical_and %HAS_RES, %[[T4]] : i1, i1 -> i1
