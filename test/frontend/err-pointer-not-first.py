# RUN: not overlap-opt %s 2>&1 | filecheck %s
# An offset on the left of a pointer parameter, through an assignment: the
# parameter is not recognised as a pointer, and the memory op says so at its
# line instead of failing verification.
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    q = offs + x_ptr
    tl.store(out_ptr + offs, tl.load(q))

# CHECK: {{.*}}err-pointer-not-first.py:13: the pointer operand of tl.load is not a pointer (`q` has type !tile.block<?x!tile.scalar>): write the pointer parameter first, `x_ptr + offsets`, as Triton code does
