# A `tl.where` clamp of a tile's rows set inside a branch of a persistent
# loop (`if ki == 0: offs_am = tl.where(offs_am < M, offs_am, 0)`) crosses the
# branch as a whole block, so the load's index is the `if`'s result: refused,
# naming the load. Clamped where the load is (the branch sets the tile's start
# only), the same rows fuse: `[lo, min(lo + B, M))` plus row 0, the wait in the
# loop.
# RUN: not overlap-opt %s --kernel in_branch --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=BRANCH
# RUN: overlap-opt %s --kernel at_load --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s
import triton
import triton.language as tl


@triton.jit
def in_branch(a_ptr, c_ptr, M, K, stride_am, stride_ak, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
              NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(0)
    num_tiles = tl.cdiv(M, BLOCK_M)
    k_tiles = tl.cdiv(K, BLOCK_K)
    tiles_per_sm = num_tiles // NUM_SMS
    if start_pid < num_tiles % NUM_SMS:
        tiles_per_sm += 1
    tile_id = start_pid - NUM_SMS
    ki = -1
    offs_am = tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for _ in range(0, k_tiles * tiles_per_sm):
        ki = tl.where(ki == k_tiles - 1, 0, ki + 1)
        if ki == 0:
            tile_id += NUM_SMS
            offs_am = tile_id * BLOCK_M + tl.arange(0, BLOCK_M)
            offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_k = ki * BLOCK_K + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak, mask=offs_k[None, :] < K)
        acc += tl.sum(a, axis=1)
        if ki == k_tiles - 1:
            offs_cm = tile_id * BLOCK_M + tl.arange(0, BLOCK_M)
            tl.store(c_ptr + offs_cm, acc, mask=offs_cm < M)
            acc = tl.zeros((BLOCK_M,), dtype=tl.float32)


@triton.jit
def at_load(a_ptr, c_ptr, M, K, stride_am, stride_ak, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
            NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(0)
    num_tiles = tl.cdiv(M, BLOCK_M)
    k_tiles = tl.cdiv(K, BLOCK_K)
    tiles_per_sm = num_tiles // NUM_SMS
    if start_pid < num_tiles % NUM_SMS:
        tiles_per_sm += 1
    tile_id = start_pid - NUM_SMS
    ki = -1
    offs_am = tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for _ in range(0, k_tiles * tiles_per_sm):
        ki = tl.where(ki == k_tiles - 1, 0, ki + 1)
        if ki == 0:
            tile_id += NUM_SMS
            offs_am = tile_id * BLOCK_M + tl.arange(0, BLOCK_M)
        rows = tl.where(offs_am < M, offs_am, 0)
        rows = tl.max_contiguous(tl.multiple_of(rows, BLOCK_M), BLOCK_M)
        offs_k = ki * BLOCK_K + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + offs_k[None, :] * stride_ak, mask=offs_k[None, :] < K)
        acc += tl.sum(a, axis=1)
        if ki == k_tiles - 1:
            offs_cm = tile_id * BLOCK_M + tl.arange(0, BLOCK_M)
            tl.store(c_ptr + offs_cm, acc, mask=offs_cm < M)
            acc = tl.zeros((BLOCK_M,), dtype=tl.float32)

# BRANCH: where-clamp-in-branch.py:33: 'tile.load': cannot bound the access of 'a_ptr' along dim 0: the index is not 'scalar + tl.arange(0, BLOCK)' (found scf.if); an arm of this `if` clamps the index block (`tl.where`, `tl.minimum`, `tl.maximum`), which leaves the `if` as a whole block: set only the start in the branch (`offs = start + tl.arange(0, B)`) and clamp where the access is
# (A flat (tile, k-step) loop: the tile's id is pid0 on the host, so the rows are exact there.)
# CHECK: %a = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "a_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "(min(((pid0 * BLOCK_M) + BLOCK_M), M) - (pid0 * BLOCK_M))", loops = 1 : i64, invariant = 0 : i64, else_lo = "0", else_extent = "min(1, max(0, (((pid0 * BLOCK_M) + BLOCK_M) - M)))"}
