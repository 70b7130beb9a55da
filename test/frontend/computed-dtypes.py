# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=0 size=n world=2}' --kernel widen_bf16 -p chunk-dependency-analysis | filecheck %s --check-prefix=FUSE
# Dtypes Triton knows when it compiles and this import does not, kept as
# written: `x.dtype is tl.bfloat16` (an identity test against a dtype, like
# `is None`), `tl.zeros(..., dtype=X.dtype.element_ty)` and `tl.full(...,
# dtype=Y.type.element_ty)` (a block whose element type stays open). A
# module-level name for a triton function (`triton_cast = tl.cast`, Unsloth)
# is that function: `tl_load = tl.load` imports as `tile.load`, so the
# analysis bounds and waits for it.
import triton
import triton.language as tl

triton_cast = tl.cast
tl_load = tl.load


@triton.jit
def widen_bf16(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl_load(x_ptr + offs, mask=offs < n)
    if x.dtype is tl.bfloat16:
        x = triton_cast(x, tl.float32)
    if x.dtype is not tl.float32:
        x = x.to(tl.float32)
    acc = tl.zeros((BLOCK,), dtype=x_ptr.dtype.element_ty)
    one = tl.full((BLOCK,), 1, dtype=y_ptr.type.element_ty)
    tl.store(y_ptr + offs, acc + x + one, mask=offs < n)

# CHECK-LABEL: tile.func @widen_bf16
# CHECK:       %x = tile.load
# CHECK:       %[[BF16:.*]] = tile.literal bf16
# CHECK-NEXT:  tile.cmp "is", %{{.*}}, %[[BF16]] : !tile.constexpr, !tile.constexpr -> i1
# CHECK:       tile.call "tl.cast"
# CHECK:       tile.cmp "isnot"
# CHECK:       tile.call "tl.zeros"
# CHECK:       tile.call "tl.full"

# EMIT:      if x.dtype is tl.bfloat16:
# EMIT-NEXT:     x_1 = tl.cast(x, tl.float32)
# EMIT:      if x.dtype is not tl.float32:
# EMIT:      acc = tl.zeros((BLOCK,), dtype=x_ptr.dtype.element_ty)
# EMIT-NEXT: one = tl.full((BLOCK,), 1, dtype=y_ptr.type.element_ty)

# FUSE: %x = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK)", extent = "BLOCK"
