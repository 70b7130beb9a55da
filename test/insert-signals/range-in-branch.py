# The store's row range is computed inside the branch: the signal after the
# scf.if could not use it, so this is an error.
# RUN: not overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2}' -p insert-signals 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def rs_inside(c_ptr, M, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    if pid < M:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], 1.0)

# CHECK: insert-signals: the row range of the store of 'c_ptr' is computed inside the 'scf.if' that holds the store; compute it before the branch
