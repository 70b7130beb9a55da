# A pointer carried through a loop (`xp += BLOCK_K * stride_xk`) is an access
# the analysis cannot bound: it is refused with its line, never skipped, even
# when another access of the same tensor (after the loop) could be bounded.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=ONLY
# RUN: not overlap-opt %s --plan 'all-gather{tensor=w_ptr world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=PLUS
# RUN: not overlap-opt %s --plan 'all-gather{tensor=h_ptr world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=HELPER
# RUN: not overlap-opt %s --plan 'all-gather{tensor=w_ptr world=2}' -p overlap 2>&1 | filecheck %s --check-prefix=PLUS
# The same loop, indexing from the parameter in each iteration, is bounded:
# RUN: overlap-opt %s --plan 'all-gather{tensor=d_ptr world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=DIRECT
import triton
import triton.language as tl


@triton.jit
def carried_only(x_ptr, o_ptr, M, K, stride_xm, stride_xk, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    ks = tl.arange(0, BLOCK_K)
    xp = x_ptr + rows[:, None] * stride_xm + ks[None, :] * stride_xk
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        acc += tl.load(xp)
        xp += BLOCK_K * stride_xk
    tl.store(o_ptr + rows[:, None] * BLOCK_K + ks[None, :], acc)


@triton.jit
def carried_plus(w_ptr, o_ptr, M, K, stride_wm, stride_wk, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    ks = tl.arange(0, BLOCK_K)
    wp = w_ptr + rows[:, None] * stride_wm + ks[None, :] * stride_wk
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        acc += tl.load(wp)
        wp += BLOCK_K * stride_wk
    acc += tl.load(w_ptr + rows[:, None] * stride_wm + ks[None, :] * stride_wk)
    tl.store(o_ptr + rows[:, None] * BLOCK_K + ks[None, :], acc)


@triton.jit
def load_tile(p):
    return tl.load(p)


@triton.jit
def through_helper(h_ptr, o_ptr, M, stride_hm, BLOCK_M: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    tl.store(o_ptr + rows, load_tile(h_ptr + rows * stride_hm))


@triton.jit
def direct(d_ptr, o_ptr, M, K, stride_dm, stride_dk, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        acc += tl.load(d_ptr + rows[:, None] * stride_dm + ks[None, :] * stride_dk)
    tl.store(o_ptr + rows[:, None] * BLOCK_K + tl.arange(0, BLOCK_K)[None, :], acc)

# ONLY: overlap-opt: error: chunk-dependency-analysis: loop-carried.py:21: 'tile.load': accesses 'x_ptr' through a pointer carried by a loop or branch
# ONLY-SAME: it cannot be synchronised
# PLUS: chunk-dependency-analysis: loop-carried.py:33: 'tile.load': accesses 'w_ptr' through a pointer carried by a loop or branch
# HELPER: chunk-dependency-analysis: loop-carried.py:47: 'tile.call_jit': passes 'h_ptr' to the jit helper @load_tile; accesses inside helpers are not analysed
# DIRECT: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "d_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 1 : i64, invariant = 1 : i64}
