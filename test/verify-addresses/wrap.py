# Rows wrapped with `% M` (the grouped-matmul idiom: the last row block reads
# rows from the start instead of masking). chunk-dependency-analysis waits for
# [lo % M, lo % M + BLOCK_M) and for the wrapped tail [0, lo % M + BLOCK_M - M);
# verify-addresses proves both pieces of `(lo + i) % M` covered (strict), and
# records that the proof needs M >= 1 (Triton's `%` of a non-negative value
# by a positive one) and every size it read >= 0.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,insert-signals,verify-addresses{strict=true}' | filecheck %s
# Without the wait of the tail the proof fails (strict), naming both pieces.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,insert-signals' --print-debuginfo | sed '/chunk.wait_span .*: i32, !tile.any/d' | not overlap-opt -f mlir -p 'verify-addresses{strict=true}' 2>&1 | filecheck %s --check-prefix=TAIL
# With no waits placed at all, neither piece is proved (strict).
# RUN: not overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'chunk-dependency-analysis,insert-signals{waits=false},verify-addresses{strict=true}' 2>&1 | filecheck %s --check-prefix=NOWAIT
import triton
import triton.language as tl


@triton.jit
def wrapped_rows(a_ptr, c_ptr, M, N, stride_am, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = (pid * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    cols = tl.arange(0, BLOCK_N)
    a = tl.load(a_ptr + rows[:, None] * stride_am + cols[None, :], mask=cols[None, :] < N, other=0.0)
    out = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    tl.store(c_ptr + out[:, None] * stride_cm + cols[None, :], a, mask=(out[:, None] < M) & (cols[None, :] < N))

# CHECK:      chunk.assume = [{where = "wrap.py:{{[0-9]+}}: 'tile.load'", guards = [], least = {
# CHECK-SAME: M = 1 : i64
# CHECK:      chunk.wait_span
# CHECK:      chunk.wait_span

# TAIL: verify-addresses: wrap.py:{{[0-9]+}}: 'tile.load' is unproved: reads rows [TMod(BLOCK_M*pid0, M), {{.*}}) and [0, {{.*}}) of 'a_ptr' (plan @ag)

# NOWAIT: verify-addresses: wrap.py:{{[0-9]+}}: 'tile.load' is unproved: {{.*}} waits that dominate it: none
