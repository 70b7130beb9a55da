# `--kernel NAME` imports the named kernel and the jit functions it reaches;
# another kernel of the file that the frontend refuses is left out (a note
# on stderr names it and why), one that imports is kept and emitted
# unchanged. A name no jit function of the file has is an error, with or
# without a plan, listing the kernels found.
# RUN: overlap-opt %s --kernel scale 2>%t.err | filecheck %s
# RUN: filecheck %s --check-prefix=NOTE < %t.err
# RUN: overlap-opt %s --kernel scale --plan 'all-gather{tensor=x_ptr dim=0 size=M world=2}' -p overlap -t triton 2>/dev/null | filecheck %s --check-prefix=EMIT
# RUN: not overlap-opt %s 2>&1 | filecheck %s --check-prefix=WHOLE
# RUN: %python %S/inputs/status.py overlap-opt %s --kernel nope | filecheck %s --check-prefix=UNKNOWN
# RUN: %python %S/inputs/status.py overlap-opt %s --kernel nope --plan 'all-gather{tensor=x_ptr dim=0 size=M world=2}' | filecheck %s --check-prefix=UNKNOWN
# RUN: %python %S/inputs/status.py overlap-opt %s --kernel nope -t triton | filecheck %s --check-prefix=UNKNOWN
import triton
import triton.language as tl


@triton.jit
def _offsets(BLOCK: tl.constexpr):
    return tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)


@triton.jit
def _twice(x):
    return x * 2


@triton.jit
def rows(BLOCK: tl.constexpr):
    return _offsets(BLOCK)


@triton.jit
def scale(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    offs = rows(BLOCK)
    tl.store(y_ptr + offs, _twice(tl.load(x_ptr + offs, mask=offs < M)), mask=offs < M)


@triton.jit
def unsupported_sibling(x_ptr, BLOCK: tl.constexpr):
    lanes = [tl.program_id(0), BLOCK]
    tl.store(x_ptr + lanes[0], 1.0)


@triton.jit
def supported_sibling(x_ptr, BLOCK: tl.constexpr):
    offs = _offsets(BLOCK)
    tl.store(x_ptr + offs, 0.0)

# CHECK:     tile.func @_offsets
# CHECK:     tile.func @_twice
# CHECK:     tile.func @rows
# CHECK:     tile.func @scale
# CHECK-NOT: tile.func @unsupported_sibling
# CHECK:     tile.func @supported_sibling
# CHECK-NOT: tile.func @unsupported_sibling
# NOTE:      overlap-opt: note: left out (not --kernel scale): {{.*}}kernel-option.py:40: unsupported
# NOTE-NOT:  note:
# EMIT:      def scale(
# EMIT:      def supported_sibling(x_ptr, BLOCK: tl.constexpr):
# EMIT-NOT:  def unsupported_sibling
# WHOLE:     overlap-opt: error: {{.*}}kernel-option.py:40: unsupported
# UNKNOWN:      overlap-opt: error: {{.*}}kernel-option.py: no kernel named 'nope' (kernels: _offsets, _twice, rows, scale, unsupported_sibling, supported_sibling)
# UNKNOWN-NEXT: exit 1
