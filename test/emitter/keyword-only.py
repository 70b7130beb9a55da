# RUN: overlap-opt %s -t triton -o %t.py
# RUN: filecheck %s --input-file %t.py
# RUN: env TRITON_INTERPRET=1 %python %S/inputs/run_keyword_only.py %t.py | filecheck %s --check-prefix=OUT
# Keyword-only parameters are emitted as ordinary ones, in order, with their
# defaults: Triton 3.6's @triton.jit does not bind keyword-only parameters
# (3.9's does), and a launch that passes them by keyword binds them the same.
import triton
import triton.language as tl


@triton.jit
def shifted(x, *, factor, SHIFT: tl.constexpr = 1.0):
    return x * factor + SHIFT


@triton.jit
def kw_kernel(x_ptr, n, *, out_ptr, scale: tl.float32, BLOCK: tl.constexpr, MODE: tl.constexpr = "fast"):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, shifted(x, factor=scale, SHIFT=1.0), mask=offs < n)

# CHECK:      def shifted(x, factor, SHIFT: tl.constexpr = 1.0):
# CHECK:      def kw_kernel(x_ptr, n, out_ptr, scale: tl.float32, BLOCK: tl.constexpr, MODE: tl.constexpr = 'fast'):
# CHECK:          tmp = shifted(x, scale, 1.0)
# OUT: max_err=0.0{{$}}
