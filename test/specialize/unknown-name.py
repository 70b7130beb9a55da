# RUN: not overlap-opt %s -p 'specialize{BLOCK_K=64}' 2>&1 | filecheck %s
# RUN: not overlap-opt %s -p 'specialize{n=4}' 2>&1 | filecheck %s --check-prefix=RUNTIME
# RUN: not overlap-opt %s -p 'specialize{BLOCK_M=1,2}' 2>&1 | filecheck %s --check-prefix=VALUES
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK_M), n)

# CHECK: specialize: no tl.constexpr parameter named `BLOCK_K` (constexpr parameters: BLOCK_M, BLOCK_N)
# A runtime parameter cannot be specialized either.
# RUNTIME: specialize: no tl.constexpr parameter named `n` (constexpr parameters: BLOCK_M, BLOCK_N)
# VALUES: specialize: `BLOCK_M` needs exactly one value
