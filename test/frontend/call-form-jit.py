# `kernel = triton.jit(fn)` makes `fn` a jit function, as the decorator does; options carry over.
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
import triton
import triton.language as tl
from triton import jit as tjit


@triton.jit
def decorated(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0, mask=tl.arange(0, BLOCK) < n)


def _called(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 2.0, mask=tl.arange(0, BLOCK) < n)


def _aliased(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 3.0, mask=tl.arange(0, BLOCK) < n)


def host_side(x):
    return x


called = triton.jit(_called, do_not_specialize=["n"])
aliased = tjit(_aliased)
plain = host_side  # no jit call: not a kernel

# CHECK: tile.func @decorated
# CHECK: tile.func @_called
# CHECK: tile.func @_aliased
# CHECK-NOT: tile.func @host_side
# EMIT: @triton.jit(do_not_specialize=['n'])
# EMIT-NEXT: def _called(
# EMIT: @tjit
# EMIT-NEXT: def _aliased(
