# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
# An early exit at the top level (`if c: return`) guards the rest of the
# function: the rest becomes the else branch. `a if c else b` is an scf.if
# with one result.
import triton
import triton.language as tl


@triton.jit
def guarded(x_ptr, n_rows, SCALE: tl.constexpr):
    row = tl.program_id(0)
    if row >= n_rows:
        return
    factor = 2.0 if SCALE > 1 else 1.0
    tl.store(x_ptr + row, factor)

# CHECK:      %[[C:.*]] = tile.cmp "ge", %row, %n_rows
# CHECK:      scf.if %{{.*}} {
# CHECK-NEXT: } else {
# CHECK:        %factor = scf.if %{{.*}} -> (f32) {
# CHECK:          scf.yield %{{.*}} : f32
# CHECK:        } else {
# CHECK:          scf.yield %{{.*}} : f32
# CHECK:        }
# CHECK:        tile.store %factor
# EMIT:       if row >= n_rows:
# EMIT-NEXT:      pass
# EMIT-NEXT:  else:
# EMIT-NEXT:      if SCALE > 1:
# EMIT-NEXT:          factor = 2.0
# EMIT-NEXT:      else:
# EMIT-NEXT:          factor = 1.0
# EMIT-NEXT:      tl.store(x_ptr + row, factor)
