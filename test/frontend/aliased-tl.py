# Spellings of triton.language ops through another module name are the same
# ops: tl.core.load, tlc.store after `import triton.language.core as tlc`, and
# a name imported from triton.language.core import as tile.load / tile.store,
# not as generic calls (which the analysis would never wait for).
# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl
import triton.language.core as tlc
from triton.language.core import load as ld


@triton.jit
def aliased(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.core.load(x_ptr + offs, mask=offs < N)
    b = ld(x_ptr + offs, mask=offs < N)
    tlc.store(y_ptr + offs, a + b, mask=offs < N)

# CHECK-LABEL: tile.func @aliased
# CHECK: tile.load
# CHECK: tile.load
# CHECK: tile.store
# CHECK-NOT: tile.call
