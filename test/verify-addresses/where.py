# Rows clamped with `tl.where` (the persistent-matmul idiom: lanes past M
# read row 0 instead of being masked). chunk-dependency-analysis waits for
# [lo, min(lo + BLOCK_M, M)) and for row 0 only where a lane passes M;
# verify-addresses checks each choice of the `tl.where` under its own
# condition (the row itself where `row < M`, row 0 where `row >= M`) and
# proves both covered (strict).
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,insert-signals,verify-addresses{strict=true}' | filecheck %s
# Without the wait of row 0 the clamped lanes' piece is unproved (strict).
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,insert-signals' --print-debuginfo | sed "/chunk.wait_span %4,/d" | not overlap-opt -f mlir -p 'verify-addresses{strict=true}' 2>&1 | filecheck %s --check-prefix=ROW0
import triton
import triton.language as tl


@triton.jit
def clamped_rows(a_ptr, c_ptr, M, N, stride_am, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rows = tl.where(rows < M, rows, 0)
    cols = tl.arange(0, BLOCK_N)
    a = tl.load(a_ptr + rows[:, None] * stride_am + cols[None, :], mask=cols[None, :] < N, other=0.0)
    out = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    tl.store(c_ptr + out[:, None] * stride_cm + cols[None, :], a, mask=(out[:, None] < M) & (cols[None, :] < N))

# CHECK:      chunk.assume = [{where = "where.py:{{[0-9]+}}: 'tile.load'"
# CHECK:      chunk.wait_span
# CHECK:      chunk.wait_span

# ROW0: verify-addresses: where.py:{{[0-9]+}}: 'tile.load' is unproved: reads rows [0, Min(1, {{.*}})) of 'a_ptr' (plan @ag)
