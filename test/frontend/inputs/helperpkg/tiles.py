"""jit helpers the package's kernels import: a GROUP_M tile swizzle that
calls a helper of its own module and reads a constexpr global of it."""

import triton
import triton.language as tl
from triton import jit

# `tl.constexpr(2)`: Triton 3.6 refuses an annotated global (`GROUP_M: tl.constexpr = 2`) in a kernel
GROUP_M = tl.constexpr(2)


@triton.jit
def _group_of(pid, num_n):
    return pid // (GROUP_M * num_n)


@jit
def tile_coords(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    first_m = _group_of(pid, num_n) * GROUP_M
    size_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % size_m)
    pid_n = (pid % (GROUP_M * num_n)) // size_m
    return pid_m, pid_n


def host_grid(M, N, BLOCK_M, BLOCK_N):
    """Plain Python (not a jit helper): a kernel cannot call it."""
    return (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
