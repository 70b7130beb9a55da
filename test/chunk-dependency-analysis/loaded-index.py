# An index loaded from memory (no `scalar + tl.arange`) cannot be bounded;
# the error suggests one loaded row id at a time, which fuses (`per_row`).
# RUN: not overlap-opt %s --kernel gathered_idx --plan 'all-gather{tensor=x_ptr world=2 size=N stride=1}' -p chunk-dependency-analysis 2>&1 | filecheck %s
# Without stride=1 the 1-D address (one unit-stride index) is dim 0 all the same: same error.
# RUN: not overlap-opt %s --kernel gathered_idx --plan 'all-gather{tensor=x_ptr world=2 size=N}' -p chunk-dependency-analysis 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def gathered_idx(x_ptr, idx_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    idx = tl.load(idx_ptr + offs)
    tl.store(y_ptr + offs, tl.load(x_ptr + idx))


@triton.jit
def per_row(x_ptr, idx_ptr, y_ptr, N, stride, BLOCK: tl.constexpr, COLS: tl.constexpr):
    cols = tl.arange(0, COLS)
    for i in range(BLOCK):
        row = tl.load(idx_ptr + tl.program_id(0) * BLOCK + i)
        tl.store(y_ptr + (tl.program_id(0) * BLOCK + i) * stride + cols, tl.load(x_ptr + row * stride + cols))

# CHECK: chunk-dependency-analysis: loaded-index.py:14: 'tile.load': cannot bound the access of 'x_ptr' along dim 0: the index is not 'scalar + tl.arange(0, BLOCK)' (found tile.load: rows read from memory); load one row id at a time and add it times the row stride (`row = tl.load(ids_ptr + i)`, `x_ptr + row * stride + cols`): the kernel then waits for that row's chunk
# RUN: overlap-opt %s --kernel per_row --plan 'all-gather{tensor=x_ptr world=2 size=N}' -p insert-signals,verify-sync | filecheck %s --check-prefix=ROW
# ROW:      scf.for
# ROW:      %[[ROW:row]] = tile.load
# ROW:      chunk.wait_span %[[ROW]], %{{.*}} plan @ag tensor "x_ptr"
# ROW-NEXT: tile.load
