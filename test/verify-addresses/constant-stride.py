# A row stride written as a literal (`rows * 48`) is not checked against the launched tensor's stride, so
# the independent verifier refuses to prove the access: the refusal names the stride and the access's line.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2 size=M}' -p overlap 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def literal_stride(a_ptr, c_ptr, M, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    ks = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rows[:, None] * 48 + ks[None, :], mask=rows[:, None] < M, other=0.0)
    tl.store(c_ptr + rows, tl.sum(a, axis=1), mask=rows < M)

# CHECK: overlap-opt: error: verify-addresses: constant-stride.py:12: 'tile.load' is unbounded: the plan's stride 48 along dim 0 is not a parameter or 1
