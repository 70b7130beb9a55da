# Every use of a planned pointer is either modelled or refused with its line,
# never skipped: a pointer carried through a loop (`xp += BLOCK_K * stride_xk`)
# gets a footprint, also next to a direct load after the loop; one chosen in
# a branch or passed to a jit helper is refused.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=ONLY
# RUN: overlap-opt %s --plan 'all-gather{tensor=w_ptr world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=PLUS
# RUN: not overlap-opt %s --plan 'all-gather{tensor=b_ptr world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=BRANCH
# RUN: not overlap-opt %s --plan 'all-gather{tensor=b_ptr world=2}' -p overlap -t triton 2>&1 | filecheck %s --check-prefix=BRANCH
# RUN: not overlap-opt %s --plan 'all-gather{tensor=h_ptr world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=HELPER
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
def branch(b_ptr, o_ptr, M, stride_bm, FLIP: tl.constexpr, BLOCK_M: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    if FLIP:
        bp = b_ptr + rows * stride_bm
    else:
        bp = b_ptr + (M - 1 - rows) * stride_bm
    tl.store(o_ptr + rows, tl.load(bp))


@triton.jit
def direct(d_ptr, o_ptr, M, K, stride_dm, stride_dk, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        acc += tl.load(d_ptr + rows[:, None] * stride_dm + ks[None, :] * stride_dk)
    tl.store(o_ptr + rows[:, None] * BLOCK_K + tl.arange(0, BLOCK_K)[None, :], acc)

# ONLY: tile.load %xp{{.*}}chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 1 : i64
# PLUS: tile.load %wp{{.*}}chunk.access = {plan = @ag, tensor = "w_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 1 : i64
# PLUS: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "w_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 0 : i64
# BRANCH: overlap-opt: error: chunk-dependency-analysis: loop-carried.py:59: 'tile.load': accesses 'b_ptr' through a pointer carried by a loop or branch
# BRANCH-SAME: it cannot be synchronised
# HELPER: chunk-dependency-analysis: loop-carried.py:49: 'tile.call_jit': passes 'h_ptr' to the jit helper @load_tile; accesses inside helpers are not analysed
# DIRECT: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "d_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 1 : i64, invariant = 1 : i64}
