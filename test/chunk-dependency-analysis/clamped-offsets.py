# Clamped offsets: `tl.minimum` / `tl.maximum` / `tl.clamp` of the row index
# by a scalar give the clamped range, `tl.where(cond, offs, v)` adds the row
# `v`. The footprint is printed as host expressions over min/max.
# RUN: overlap-opt %s --kernel upper --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=UPPER
# RUN: overlap-opt %s --kernel both --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=BOTH
# RUN: overlap-opt %s --kernel where_lt --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=WHERE
# RUN: overlap-opt %s --kernel where_any --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=ANY
# RUN: overlap-opt %s --kernel row --plan 'all-gather{tensor=X dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=ROW
# A clamped store signals its one range.
# RUN: overlap-opt %s --kernel upper --plan 'reduce-scatter{tensor=c_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=STORE
#
# Tile -> chunk edges of rank 0, M=40, BLOCK_M=16, chunks [0, 20) and [20, 40), grid 4:
# tile 3 ([48, 64)) clamps to row 39 only (chunk 1, not chunk 0); tile 2 ([32, 48)) to [32, 40).
# RUN: overlap-opt %s --kernel upper --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | %python %S/inputs/tile_chunks.py 0 4 M=40 BLOCK_M=16 | filecheck %s --check-prefix=UPPER-EDGES
# `tl.where(offs < M, offs, 0)`: tiles past M read row 0 too (chunk 0), tile 1 ([16, 32)) does not.
# RUN: overlap-opt %s --kernel where_lt --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | %python %S/inputs/tile_chunks.py 0 4 M=40 BLOCK_M=16 | filecheck %s --check-prefix=WHERE-EDGES
# Edge: with M a multiple of BLOCK_M no tile redirects a lane, so no tile past chunk 0 waits for it.
# RUN: overlap-opt %s --kernel where_lt --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | %python %S/inputs/tile_chunks.py 0 2 M=32 BLOCK_M=16 | filecheck %s --check-prefix=EXACT-EDGES
# Edge: any other condition may redirect any lane: every tile also waits for row 0's chunk.
# RUN: overlap-opt %s --kernel where_any --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | %python %S/inputs/tile_chunks.py 0 3 M=40 BLOCK_M=16 | filecheck %s --check-prefix=ANY-EDGES
import triton
import triton.language as tl


@triton.jit
def upper(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    offs = tl.minimum(tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), M - 1)
    ds = tl.arange(0, D)
    tl.store(c_ptr + offs[:, None] * stride_am + ds[None, :], tl.load(a_ptr + offs[:, None] * stride_am + ds[None, :]))


@triton.jit
def both(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    start = tl.program_id(0) * BLOCK_M - 2
    offs = tl.clamp(start + tl.arange(0, BLOCK_M), 0, M - 1)
    rows = tl.maximum(0, start + tl.arange(0, BLOCK_M))
    ds = tl.arange(0, D)
    x = tl.load(a_ptr + offs[:, None] * stride_am + ds[None, :])
    y = tl.load(a_ptr + rows[:, None] * stride_am + ds[None, :])
    tl.store(c_ptr + offs[:, None] * stride_am + ds[None, :], x + y)


@triton.jit
def where_lt(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    offs_am = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_am = tl.where(offs_am < M, offs_am, 0)
    offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_M), BLOCK_M)
    ds = tl.arange(0, D)
    tl.store(c_ptr + offs_am[:, None] * stride_am + ds[None, :], tl.load(a_ptr + offs_am[:, None] * stride_am + ds[None, :]))


@triton.jit
def where_any(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs = tl.where((offs % 2) == 0, offs, 0)
    ds = tl.arange(0, D)
    tl.store(c_ptr + offs[:, None] * stride_am + ds[None, :], tl.load(a_ptr + offs[:, None] * stride_am + ds[None, :]))


@triton.jit
def row(X, Y, M, stride, N: tl.constexpr):
    r = tl.minimum(tl.program_id(0), M - 1)
    cols = tl.arange(0, N)
    tl.store(Y + r * stride + cols, tl.load(X + r * stride + cols))

# UPPER:  tile.load {{.*}}chunk.access = {plan = @ag, tensor = "a_ptr", dim = 0 : i64, role = "read", lo = "min((pid0 * BLOCK_M), (M - 1))", extent = "(min(((pid0 * BLOCK_M) + BLOCK_M), ((M - 1) + 1)) - min((pid0 * BLOCK_M), (M - 1)))", loops = 0 : i64, invariant = 0 : i64}}
# BOTH:   tile.load {{.*}}lo = "min(max(((pid0 * BLOCK_M) - 2), 0), (M - 1))", extent = "(min(max((((pid0 * BLOCK_M) - 2) + BLOCK_M), (0 + 1)), ((M - 1) + 1)) - min(max(((pid0 * BLOCK_M) - 2), 0), (M - 1)))"
# BOTH:   tile.load {{.*}}lo = "max(((pid0 * BLOCK_M) - 2), 0)", extent = "(max((((pid0 * BLOCK_M) - 2) + BLOCK_M), (0 + 1)) - max(((pid0 * BLOCK_M) - 2), 0))"
# WHERE:  tile.load {{.*}}lo = "(pid0 * BLOCK_M)", extent = "(min(((pid0 * BLOCK_M) + BLOCK_M), M) - (pid0 * BLOCK_M))", loops = 0 : i64, invariant = 0 : i64, else_lo = "0", else_extent = "min(1, max(0, (((pid0 * BLOCK_M) + BLOCK_M) - M)))"}
# ANY:    tile.load {{.*}}lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M"{{.*}}else_lo = "0", else_extent = "1"}
# ROW:    tile.load {{.*}}lo = "min(pid0, (M - 1))", extent = "1"
# STORE:  tile.store {{.*}}role = "write", lo = "min((pid0 * BLOCK_M), (M - 1))"

# UPPER-EDGES:      tile (0, 0, 0): waits ag#{{[0-9]+}}[0, 20){{$}}
# UPPER-EDGES-NEXT: tile (1, 0, 0): waits ag#{{[0-9]+}}[0, 20) ag#{{[0-9]+}}[20, 40){{$}}
# UPPER-EDGES-NEXT: tile (2, 0, 0): waits ag#{{[0-9]+}}[20, 40){{$}}
# UPPER-EDGES-NEXT: tile (3, 0, 0): waits ag#{{[0-9]+}}[20, 40){{$}}

# WHERE-EDGES:      tile (0, 0, 0): waits ag#{{[0-9]+}}[0, 20){{$}}
# WHERE-EDGES-NEXT: tile (1, 0, 0): waits ag#{{[0-9]+}}[0, 20) ag#{{[0-9]+}}[20, 40){{$}}
# WHERE-EDGES-NEXT: tile (2, 0, 0): waits ag#{{[0-9]+}}[0, 20) ag#{{[0-9]+}}[20, 40){{$}}
# WHERE-EDGES-NEXT: tile (3, 0, 0): waits ag#{{[0-9]+}}[0, 20){{$}}

# EXACT-EDGES:      tile (0, 0, 0): waits ag#{{[0-9]+}}[0, 16){{$}}
# EXACT-EDGES-NEXT: tile (1, 0, 0): waits ag#{{[0-9]+}}[16, 32){{$}}

# ANY-EDGES:      tile (0, 0, 0): waits ag#{{[0-9]+}}[0, 20){{$}}
# ANY-EDGES-NEXT: tile (1, 0, 0): waits ag#{{[0-9]+}}[0, 20) ag#{{[0-9]+}}[20, 40){{$}}
# ANY-EDGES-NEXT: tile (2, 0, 0): waits ag#{{[0-9]+}}[0, 20) ag#{{[0-9]+}}[20, 40){{$}}
