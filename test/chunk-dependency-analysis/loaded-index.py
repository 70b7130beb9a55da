# A block of rows read from a table (MoE routing: ids = tl.load(...), then
# x_ptr + ids * stride) has no affine range: the analysis adds, right after the
# ids exist, their range [min, max + 1) in int64 and bounds the read by it (a
# superset of the rows the tile reads). The host cannot evaluate it: lo = "?".
# RUN: overlap-opt %s --kernel gathered_idx --plan 'all-gather{tensor=x_ptr world=2 size=N}' -p chunk-dependency-analysis | filecheck %s
# Ids divided by top_k and offset by a scalar: the range of the whole index.
# RUN: overlap-opt %s --kernel routed_rows --plan 'all-gather{tensor=x_ptr world=2 size=N}' -p chunk-dependency-analysis | filecheck %s --check-prefix=TOPK
# One loaded row id at a time: a scalar row, [row, row + 1).
# RUN: overlap-opt %s --kernel per_row --plan 'all-gather{tensor=x_ptr world=2 size=N}' -p insert-signals,verify-sync | filecheck %s --check-prefix=ROW
# A store through loaded ids (a scatter) is refused: a tile announces the rows it wrote, which must be a range.
# RUN: not overlap-opt %s --kernel scattered --plan 'reduce-scatter{tensor=y_ptr world=2 size=N}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=STORE
# A store whose row block is a scalar read from a table (`pid_m = tl.load(perm + pid)`) is refused too: the
# host counts the tiles that write each produced chunk, and cannot tell which chunk that store hits.
# RUN: not overlap-opt %s --kernel table_block --plan 'reduce-scatter{tensor=y_ptr world=2 size=N}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=TABLE
import triton
import triton.language as tl


@triton.jit
def gathered_idx(x_ptr, idx_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    idx = tl.load(idx_ptr + offs)
    tl.store(y_ptr + offs, tl.load(x_ptr + idx))


@triton.jit
def routed_rows(x_ptr, ids_ptr, y_ptr, N, first, stride, TOP_K: tl.constexpr, BLOCK: tl.constexpr, COLS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ids = tl.load(ids_ptr + offs, mask=offs < N * TOP_K, other=0)
    cols = tl.arange(0, COLS)
    rows = tl.load(x_ptr + (first + ids[:, None] // TOP_K) * stride + cols[None, :])
    tl.store(y_ptr + offs[:, None] * COLS + cols[None, :], rows)


@triton.jit
def per_row(x_ptr, idx_ptr, y_ptr, N, stride, BLOCK: tl.constexpr, COLS: tl.constexpr):
    cols = tl.arange(0, COLS)
    for i in range(BLOCK):
        row = tl.load(idx_ptr + tl.program_id(0) * BLOCK + i)
        tl.store(y_ptr + (tl.program_id(0) * BLOCK + i) * stride + cols, tl.load(x_ptr + row * stride + cols))


@triton.jit
def scattered(x_ptr, idx_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    idx = tl.load(idx_ptr + offs)
    tl.store(y_ptr + idx, tl.load(x_ptr + offs))


@triton.jit
def table_block(x_ptr, perm_ptr, y_ptr, N, BLOCK: tl.constexpr):
    block = tl.load(perm_ptr + tl.program_id(0))
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rows = block * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + rows, tl.load(x_ptr + offs), mask=rows < N)

# CHECK:      %idx = tile.load
# CHECK-NEXT: %[[WIDE:.*]] = tile.cast %idx {tile.origin = "chunk-dependency-analysis", dtype = i64}
# CHECK-NEXT: %[[LO:.*]] = tile.reduce "min" %[[WIDE]] {tile.origin = "chunk-dependency-analysis"} : !tile.any -> i64
# CHECK-NEXT: %[[HI:.*]] = tile.reduce "max" %[[WIDE]] {tile.origin = "chunk-dependency-analysis"} : !tile.any -> i64
# CHECK-NEXT: %[[ONE:.*]] = arith.constant {tile.origin = "chunk-dependency-analysis"} 1 : i64
# CHECK-NEXT: %[[PAST:.*]] = tile.add %[[HI]], %[[ONE]] {tile.origin = "chunk-dependency-analysis"} : i64, i64 -> i64
# CHECK-NEXT: %{{.*}} = tile.sub %[[PAST]], %[[LO]] {tile.origin = "chunk-dependency-analysis"} : i64, i64 -> i64
# CHECK:      tile.load %{{.*}} {chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "?", extent = "?", loops = 0 : i64, invariant = 0 : i64}}

# TOPK:      %ids = tile.load
# TOPK:      %[[Q:.*]] = tile.floordiv
# TOPK:      %[[IDX:.*]] = tile.add %first, %[[Q]]
# TOPK-NEXT: %{{.*}} = tile.cast %[[IDX]] {tile.origin = "chunk-dependency-analysis", dtype = i64}
# TOPK:      %rows = tile.load {{.*}} {chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "?", extent = "?"

# ROW:      scf.for
# ROW:      %[[ROW:row]] = tile.load
# ROW:      chunk.wait_span %[[ROW]], %{{.*}} plan @ag tensor "x_ptr"
# ROW-NEXT: tile.load

# STORE: chunk-dependency-analysis: loaded-index.py:47: 'tile.store': cannot bound the access of 'y_ptr' along dim 0: the index is not 'scalar + tl.arange(0, BLOCK)' (found rows read from memory); only a load can gather rows from a table: store to rows computed from the program id

# TABLE: chunk-dependency-analysis: loaded-index.py:55: 'tile.store': the rows this access writes to 'y_ptr' (plan @rs) depend on a value the host cannot compute (one read from memory, or a result the analysis does not follow); the host counts the tiles that write each chunk
