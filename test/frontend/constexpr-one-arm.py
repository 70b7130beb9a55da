# A name one arm of a constexpr `if` binds is yielded as tile.undef by the other arm and left unbound there
# when emitted, as the source did (Liger: `if HAS_WEIGHT: w = tl.load(...)` ... `if HAS_WEIGHT: y = y * w`).
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
import triton
import triton.language as tl


@triton.jit
def weighted(x_ptr, w_ptr, y_ptr, N, HAS_WEIGHT: tl.constexpr, NO_BIAS: tl.constexpr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < N, other=0.0)
    if HAS_WEIGHT:
        w = tl.load(w_ptr + cols, mask=cols < N, other=0.0)
    if NO_BIAS:
        pass
    else:
        b = tl.load(w_ptr + BLOCK + cols, mask=cols < N, other=0.0)
    y = x * 2.0
    if HAS_WEIGHT:
        y = y * w
    if not NO_BIAS:
        y = y + b
    tl.store(y_ptr + cols, y, mask=cols < N)

# CHECK-LABEL: tile.func @weighted
# CHECK:       %w = scf.if
# CHECK:         scf.yield
# CHECK:       } else {
# CHECK-NEXT:    %{{.*}} = tile.undef : !tile.any
# CHECK-NEXT:    scf.yield
# CHECK:       %b = scf.if
# CHECK-NEXT:    %{{.*}} = tile.undef : !tile.any
# EMIT:        if HAS_WEIGHT:
# EMIT-NEXT:       w_1 = tl.load(w_ptr + cols, mask=cols < N, other=0.0)
# EMIT-NEXT:       w = w_1
# EMIT-NEXT:   if NO_BIAS:
# EMIT-NEXT:       pass
# EMIT-NEXT:   else:
# EMIT-NEXT:       b_1 = tl.load(
# EMIT-NEXT:       b = b_1


# An `if`/`elif` chain on constexpr comparisons without `else` (attorch's
# activation helpers): each arm binds the name; Triton decides the chain
# when it compiles, so a comparison of constexprs counts as a constexpr test.
@triton.jit
def activation(x, NAME: tl.constexpr):
    if NAME == 'relu':
        y = tl.maximum(x, 0.0)
    elif NAME == 'sigmoid':
        y = tl.sigmoid(x)
    return y

# CHECK-LABEL: tile.func @activation
# CHECK:       tile.cmp "eq", %NAME
# CHECK:       %y = scf.if
# CHECK:       tile.undef
# EMIT-LABEL:  def activation(
# EMIT:        if NAME == 'relu':
# EMIT:        else:
# EMIT-NEXT:       if NAME == 'sigmoid':
# EMIT:        return y
