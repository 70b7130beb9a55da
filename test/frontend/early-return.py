# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
# An early exit at the top level (`if c: return`) guards the rest of the
# function: the rest becomes the else branch. `a if c else b` is an scf.if
# with one result, written back as the expression when `c` is a constexpr.
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
# EMIT-NEXT:      factor = 2.0 if SCALE > 1 else 1.0
# EMIT-NEXT:      tl.store(x_ptr + row, factor)


# An exit nested in a constexpr `if` (Liger's `if HAS_LABEL: if label ==
# ignore: ...; return`): what runs after the outer `if` moves into every arm
# that falls through, so no path that returned runs it.
@triton.jit
def nested(x_ptr, out_ptr, flag_ptr, N: tl.constexpr, HAS_FLAG: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, N)
    if HAS_FLAG:
        if tl.load(flag_ptr + pid) == 1:
            tl.store(out_ptr + pid * N + cols, 0.0)
            return
    tl.store(out_ptr + pid * N + cols, tl.load(x_ptr + pid * N + cols) + 1.0)

# EMIT-LABEL: def nested(
# EMIT:       if HAS_FLAG:
# EMIT-NEXT:      tmp = tl.load(flag_ptr + pid)
# EMIT-NEXT:      if tmp == 1:
# EMIT-NEXT:          tl.store(out_ptr + pid * N + cols, 0.0)
# EMIT-NEXT:      else:
# EMIT-NEXT:          tmp_1 = tl.load(x_ptr + pid * N + cols)
# EMIT-NEXT:          tl.store(out_ptr + pid * N + cols, tmp_1 + 1.0)
# EMIT-NEXT:  else:
# EMIT-NEXT:      tmp = tl.load(x_ptr + pid * N + cols)
# EMIT-NEXT:      tl.store(out_ptr + pid * N + cols, tmp + 1.0)


# An exit in the `else` arm: the statements after the `if` join the other arm.
@triton.jit
def exit_in_else(x_ptr, n_rows):
    row = tl.program_id(0)
    if row < n_rows:
        tl.store(x_ptr + row, 1.0)
    else:
        return
    tl.store(x_ptr + row + n_rows, 2.0)

# EMIT-LABEL: def exit_in_else(
# EMIT:       if row < n_rows:
# EMIT-NEXT:      tl.store(x_ptr + row, 1.0)
# EMIT-NEXT:      tl.store(x_ptr + row + n_rows, 2.0)
# EMIT-NOT:   tl.store
