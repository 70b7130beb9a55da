# RUN: overlap-opt %s -t triton | filecheck %s
# A module-level name that a kernel's parameter or local shadows is not
# reached by the kernel: the statement binding it (and what it reads, here a
# helper that needs this file's __file__) stays out of the emitted file.
import os

import triton
import triton.language as tl

_HERE = os.path.dirname(os.path.abspath(__file__))
BLOCK = len(_HERE)
acc = 0
CARRIED = 4


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + acc, tl.load(x_ptr + acc, mask=acc < n) * CARRIED, mask=acc < n)

# CHECK:      import triton.language as tl
# CHECK-NOT:  _HERE
# CHECK-NOT:  acc = 0
# CHECK:      CARRIED = 4
# CHECK-NOT:  _HERE
# CHECK:      def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
