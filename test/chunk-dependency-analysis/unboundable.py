# An address whose footprint cannot be bounded is an error naming the op; nothing is guessed.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=N stride=1}' -p chunk-dependency-analysis 2>&1 | filecheck %s
# The other pointer of the kernel is not in the plan, so its odd address does not matter.
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=y_ptr world=2 size=N stride=1}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=NOPLAN-OK
import triton
import triton.language as tl


@triton.jit
def squared(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs * offs))

# CHECK: chunk-dependency-analysis: unboundable.py:12: 'tile.load': access of 'x_ptr': an address term multiplies two blocks (not index * stride)
# The unplanned load keeps no attribute:
# NOPLAN-OK: = tile.load %{{[0-9]+}} : !tile.block
# NOPLAN-OK: tile.store {{.*}}chunk.access = {plan = @rs, tensor = "y_ptr", dim = 0 : i64, role = "write", lo = "(pid0 * BLOCK)", extent = "BLOCK"
