# Row offsets set under `if ki == 0` in a persistent loop (the older
# persistent-matmul tutorial) are carried as their start by the frontend, so
# the access is `start + tl.arange(0, B)` again: bounded, the wait kept in
# the loop. The loop is a flat (tile, k-step) loop (`ki` wrapped from -1,
# `tile_id += NUM_SMS` under `if ki == 0`), so the tile's id is pid0 on the
# host and the start is `pid0 * BLOCK_M` there; the kernel records the
# loop's bounds, from which a launch lists each program's tiles (here every
# program runs cdiv(M, BLOCK_M) tiles, so a launch refuses the repeated
# tiles unless it runs one program). (The columns are
# masked: `ki` has no upper bound verify-addresses can prove, so unmasked
# columns past N would be refused as possibly reaching the next row.)
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p overlap -t triton | filecheck %s --check-prefix=WAIT
import triton
import triton.language as tl


@triton.jit
def rows_in_branch(x_ptr, y_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   NUM_SMS: tl.constexpr):
    tile_id = tl.program_id(0) - NUM_SMS
    k_tiles = tl.cdiv(N, BLOCK_N)
    ki = -1
    offs_am = tl.arange(0, BLOCK_M)
    for _ in range(0, k_tiles * tl.cdiv(M, BLOCK_M)):
        ki = tl.where(ki == k_tiles - 1, 0, ki + 1)
        if ki == 0:
            tile_id += NUM_SMS
            offs_am = tile_id * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_k = ki * BLOCK_N + tl.arange(0, BLOCK_N)
        mask = (offs_am[:, None] < M) & (offs_k[None, :] < N)
        x = tl.load(x_ptr + offs_am[:, None] * stride_m + offs_k[None, :], mask=mask)
        tl.store(y_ptr + offs_am[:, None] * stride_m + offs_k[None, :], x, mask=mask)

# CHECK: chunk.flat_tile_loop = {lb = "0", ub = "(cdiv(N, BLOCK_N) * cdiv(M, BLOCK_M))", first = "(pid0 - NUM_SMS)", step = "NUM_SMS", k_steps = "cdiv(N, BLOCK_N)"}
# CHECK: %x = tile.load {{.*}} {chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M", loops = 1 : i64, invariant = 0 : i64}}

# WAIT:      if ki == 0:
# WAIT:      offs_am = offs_am_start + tl.arange(0, BLOCK_M)
# WAIT:      syn_wait_span(syn_flags, syn_wait_ag_x_ptr_tab, syn_wait_ag_x_ptr_n, offs_am_start, tl.minimum(offs_am_start + BLOCK_M, M),
# WAIT-NEXT: x = tl.load(x_ptr + offs_am[:, None] * stride_m
