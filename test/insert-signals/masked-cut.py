# A load whose mask bounds its rows by a parameter waits only for the rows
# it reads: the wait ends at tl.minimum(lo + BLOCK, M), so a tile past M
# (fully masked) waits for nothing. Edges: an unmasked load, and a mask on
# the other dim (cols < N), keep the whole tile's wait.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,insert-signals' --kernel masked_rows | filecheck %s --check-prefix=ROWS
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,insert-signals' --kernel unmasked | filecheck %s --check-prefix=WHOLE
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=0 world=2 size=M}' -p 'chunk-dependency-analysis,insert-signals' --kernel masked_cols | filecheck %s --check-prefix=WHOLE
import triton
import triton.language as tl


@triton.jit
def masked_rows(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + rows, mask=rows < M, other=0.0)
    tl.store(y_ptr + rows, x, mask=rows < M)


@triton.jit
def unmasked(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + rows, tl.load(x_ptr + rows))


@triton.jit
def masked_cols(x_ptr, y_ptr, M, N, stride_xm, BLOCK: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=cols[None, :] < N, other=0.0)
    tl.store(y_ptr + rows[:, None] * stride_xm + cols[None, :], x, mask=cols[None, :] < N)

# ROWS:      %[[END:[0-9]+]] = tile.add %[[LO:[0-9]+]], %BLOCK {tile.origin = "insert-signals"}
# ROWS-NEXT: %[[CUT:[0-9]+]] = tile.call "tl.minimum"(%[[END]], %M) {tile.origin = "insert-signals"}
# ROWS-NEXT: %[[SIZE:[0-9]+]] = tile.sub %[[CUT]], %[[LO]] {tile.origin = "insert-signals"}
# ROWS-NEXT: chunk.wait_span %[[LO]], %[[SIZE]] plan @ag tensor "x_ptr"

# WHOLE-NOT: tl.minimum
# WHOLE:     chunk.wait_span %{{[0-9]+}}, %BLOCK plan @ag tensor "x_ptr"
# WHOLE-NOT: tl.minimum
