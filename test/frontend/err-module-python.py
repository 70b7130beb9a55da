# RUN: not overlap-opt %s 2>&1 | filecheck %s
# A default evaluated on import of the emitted file reads only literals, the
# file's own module-level names and allow-listed Triton names; the import of
# `os` it needs is refused at its line.
import os

import triton
import triton.language as tl


@triton.jit
def k(x_ptr, B: tl.constexpr = os.cpu_count()):
    tl.store(x_ptr, B)

# CHECK: overlap-opt: error: {{.*}}err-module-python.py:5: 'import os' imports 'os', which is not one of the Triton modules and names an emitted file may import
