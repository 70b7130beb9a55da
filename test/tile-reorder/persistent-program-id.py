# A persistent kernel whose program id is read beyond its tile loop's start
# cannot be reordered: the remap moves the loop's tiles, not those uses. A
# per-program partial (`part_ptr + pid`) and a tile counter stepped beside
# the loop (the persistent TMA matmul's `tile_id_c`) are refused, naming the
# line; the same kernel with order=none is unchanged, and a start computed
# from the program id (`pid * 1`) still reorders.
# RUN: not overlap-opt %s --kernel partials --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p 'tile-reorder{order=arrival}' 2>&1 | filecheck %s --check-prefix=PART
# RUN: not overlap-opt %s --kernel counter --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p 'tile-reorder{order=rotate}' 2>&1 | filecheck %s --check-prefix=COUNTER
# RUN: overlap-opt %s --kernel partials --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p 'tile-reorder{order=none}' -t triton | filecheck %s --check-prefix=NONE
# RUN: overlap-opt %s --kernel start --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p 'tile-reorder{order=arrival}' -t triton | filecheck %s --check-prefix=START
import triton
import triton.language as tl


@triton.jit
def partials(x_ptr, part_ptr, M, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PROGRAMS: tl.constexpr):
    pid = tl.program_id(0)
    tiles = tl.cdiv(M, BLOCK_M)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for tile in range(pid, tiles, PROGRAMS):
        rows = tile * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=rows[:, None] < M, other=0.0)
        acc += tl.sum(x, axis=0)
    tl.store(part_ptr + pid * BLOCK_N + tl.arange(0, BLOCK_N), acc)


@triton.jit
def counter(x_ptr, y_ptr, M, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PROGRAMS: tl.constexpr):
    start_pid = tl.program_id(0)
    tiles = tl.cdiv(M, BLOCK_M)
    tile_out = start_pid - PROGRAMS
    for tile in range(start_pid, tiles, PROGRAMS):
        tile_out += PROGRAMS
        rows = tile * BLOCK_M + tl.arange(0, BLOCK_M)
        out_rows = tile_out * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=rows[:, None] < M)
        tl.store(y_ptr + out_rows[:, None] * BLOCK_N + cols[None, :], x, mask=out_rows[:, None] < M)


@triton.jit
def start(x_ptr, y_ptr, M, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, PROGRAMS: tl.constexpr):
    tiles = tl.cdiv(M, BLOCK_M)
    for tile in range(tl.program_id(0), tiles, PROGRAMS):
        rows = tile * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=rows[:, None] < M)
        tl.store(y_ptr + rows[:, None] * BLOCK_N + cols[None, :], x, mask=rows[:, None] < M)

# PART: tile-reorder: {{.*}}persistent-program-id.py:{{[0-9]+}}{{.*}}@partials is a persistent kernel that uses tl.program_id(0) beyond the start of its tile loop
# COUNTER: tile-reorder: {{.*}}persistent-program-id.py:{{[0-9]+}}{{.*}}@counter is a persistent kernel that uses tl.program_id(0) beyond the start of its tile loop
# NONE: def partials(
# NONE: tl.store(part_ptr + pid * BLOCK_N
# START: syn_tile_pid0(syn_tile_order, tile, 0, 0, tiles, 1)
