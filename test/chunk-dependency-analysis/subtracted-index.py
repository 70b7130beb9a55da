# RUN: overlap-opt %s --kernel shift_down --plan 'all-gather{tensor=x_ptr world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=SHIFT
# RUN: overlap-opt %s --kernel reverse_rows --plan 'all-gather{tensor=x_ptr world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=REV
# RUN: overlap-opt %s --kernel reverse_rows --plan 'all-gather{tensor=x_ptr world=2}' -p overlap -t triton | filecheck %s --check-prefix=WAIT
# RUN: overlap-opt %s --kernel clamped_halo --plan 'all-gather{tensor=x_ptr world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=HALO
# A subtraction in the index is bounded exactly: `offs - PAD` shifts the
# range down ([lo - PAD, lo - PAD + B)); `s - offs` reverses it (rows s - lo
# down to s - lo - B + 1: [s - lo - B + 1, s - lo + 1)); both compose with
# added scalars, each other and clamps. test/unit/analysis/test_subtracted_index.py
# runs the first two on simulated ranks (every delivery, isolated included).
import triton
import triton.language as tl


@triton.jit
def shift_down(x_ptr, y_ptr, M, N, PAD, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rows = offs - PAD
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] >= 0) & (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + offs[:, None] * stride_ym + cols[None, :], x)


@triton.jit
def reverse_rows(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rows = M - 1 - offs
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=rows[:, None] >= 0)
    tl.store(y_ptr + offs[:, None] * stride_ym + cols[None, :], x)


@triton.jit
def clamped_halo(x_ptr, y_ptr, M, N, PAD, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    # edge: PAD - (PAD - offs) is offs again, then clamped at row 0
    rows = tl.maximum(PAD - (PAD - (pid * BLOCK_M + tl.arange(0, BLOCK_M))) - 1, 0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :])
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x)

# SHIFT: %x = tile.load {{.*}} {chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M) - PAD", extent = "BLOCK_M", loops = 0 : i64, invariant = 0 : i64}}

# REV:  %x = tile.load {{.*}} {chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(M - 1) - (pid0 * BLOCK_M) - BLOCK_M + 1", extent = "BLOCK_M", loops = 0 : i64, invariant = 0 : i64}}

# The wait covers the same rows, computed in the kernel, cut at row 0 by the
# mask `rows >= 0` (the last tile's rows below 0 read nothing).
# WAIT:      def reverse_rows(
# WAIT:      [[P:[a-z_0-9]+]] = pid * BLOCK_M
# WAIT:      [[S:[a-z_0-9]+]] = M - 1
# WAIT:      [[LO:[a-z_0-9]+]] = [[S]] - [[P]] - BLOCK_M + 1
# WAIT-NEXT: # inserted by lower-chunk-to-tile
# WAIT-NEXT: syn_wait_span(syn_flags, syn_wait_ag_x_ptr_tab, syn_wait_ag_x_ptr_n, tl.maximum([[LO]], 0), [[LO]] + BLOCK_M,
# WAIT-NEXT: x = tl.load(x_ptr

# HALO: %x = tile.load {{.*}} {chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "max(PAD + (pid0 * BLOCK_M) - 1 - PAD, 0)", extent = "(max((PAD + (pid0 * BLOCK_M) - 1 - PAD + BLOCK_M), (0 + 1)) - max(PAD + (pid0 * BLOCK_M) - 1 - PAD, 0))", loops = 0 : i64, invariant = 0 : i64}}
