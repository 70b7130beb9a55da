# Clamped row indices: the waits (and the signal of a clamped store) cover the
# rows of index_spans.intervals, computed in the kernel with tl.minimum /
# tl.maximum from the same formulas the host uses.
# `tl.minimum(offs, M - 1)`: one wait [min(lo, M - 1), min(lo + B, M)).
# RUN: overlap-opt %s --kernel upper --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p insert-signals | filecheck %s --check-prefix=UPPER
# `tl.where(offs < M, offs, 0)`: [lo, min(lo + B, M)) and row 0 when lo + B > M.
# RUN: overlap-opt %s --kernel where_lt --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p insert-signals | filecheck %s --check-prefix=WHERE
# A clamped store signals its one clamped range.
# RUN: overlap-opt %s --kernel upper --plan 'reduce-scatter{tensor=c_ptr dim=0 size=M world=2}' -p insert-signals | filecheck %s --check-prefix=SIGNAL
# Edge: a clamped range inside a loop is not walked (chunk.wait_span, not wait_span_loop).
# RUN: overlap-opt %s --kernel looped --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p insert-signals | filecheck %s --check-prefix=LOOP
# verify-sync proves the clamped waits cover the clamped rows (sympy Min/Max on both sides).
# RUN: overlap-opt %s --kernel where_lt --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p insert-signals,verify-sync | filecheck %s --check-prefix=WHERE
# RUN: overlap-opt %s --kernel upper --plan 'reduce-scatter{tensor=c_ptr dim=0 size=M world=2}' -p insert-signals,verify-sync | filecheck %s --check-prefix=SIGNAL
# Edge: a wait for the unclamped rows alone does not cover the redirected row 0.
# RUN: overlap-opt %s --kernel where_lt --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p insert-signals | awk '/chunk.wait_span/ { n++; if (n == 2) next } { print }' > %t.mlir
# RUN: not overlap-opt %t.mlir -p verify-sync 2>&1 | filecheck %s --check-prefix=MISSING
import triton
import triton.language as tl


@triton.jit
def upper(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    offs = tl.minimum(tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), M - 1)
    ds = tl.arange(0, D)
    tl.store(c_ptr + offs[:, None] * stride_am + ds[None, :], tl.load(a_ptr + offs[:, None] * stride_am + ds[None, :]))


@triton.jit
def where_lt(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    offs_am = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_am = tl.where(offs_am < M, offs_am, 0)
    ds = tl.arange(0, D)
    tl.store(c_ptr + offs_am[:, None] * stride_am + ds[None, :], tl.load(a_ptr + offs_am[:, None] * stride_am + ds[None, :]))


@triton.jit
def looped(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    ds = tl.arange(0, D)
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = tl.minimum(start + tl.arange(0, BLOCK_M), M - 1)
        acc += tl.load(a_ptr + rows[:, None] * stride_am + ds[None, :])
    tl.store(c_ptr + tl.arange(0, BLOCK_M)[:, None] * stride_am + ds[None, :], acc)

# UPPER:      %[[LO:.*]] = tile.mul %{{.*}}, %BLOCK_M
# UPPER:      %[[BOUND:.*]] = tile.sub %M, %{{.*}}
# UPPER:      %[[HI:.*]] = tile.add %[[LO]], %BLOCK_M {tile.origin = "insert-signals"}
# UPPER-NEXT: %[[CLO:.*]] = tile.call "tl.minimum"(%[[LO]], %[[BOUND]]) {tile.origin = "insert-signals"}
# UPPER-NEXT: %[[ONE:.*]] = arith.constant {tile.origin = "insert-signals"} 1 : i32
# UPPER-NEXT: %[[END:.*]] = tile.add %[[BOUND]], %[[ONE]] {tile.origin = "insert-signals"}
# UPPER-NEXT: %[[CHI:.*]] = tile.call "tl.minimum"(%[[HI]], %[[END]]) {tile.origin = "insert-signals"}
# UPPER-NEXT: %[[EXT:.*]] = tile.sub %[[CHI]], %[[CLO]] {tile.origin = "insert-signals"}
# UPPER-NEXT: chunk.wait_span %[[CLO]], %[[EXT]] plan @ag tensor "a_ptr"
# UPPER-NOT:  chunk.wait_span

# WHERE:      %[[LO:.*]] = tile.mul %{{.*}}, %BLOCK_M
# WHERE:      %[[HI:.*]] = tile.add %[[LO]], %BLOCK_M {tile.origin = "insert-signals"}
# WHERE:      %[[OVER:.*]] = tile.sub %[[HI]], %M {tile.origin = "insert-signals"}
# WHERE-NEXT: %[[POS:.*]] = tile.call "tl.maximum"(%{{.*}}, %[[OVER]]) {tile.origin = "insert-signals"}
# WHERE-NEXT: %[[USED:.*]] = tile.call "tl.minimum"(%{{.*}}, %[[POS]]) {tile.origin = "insert-signals"}
# WHERE-NEXT: %[[TOP:.*]] = tile.call "tl.minimum"(%[[HI]], %M) {tile.origin = "insert-signals"}
# WHERE-NEXT: %[[EXT:.*]] = tile.sub %[[TOP]], %[[LO]] {tile.origin = "insert-signals"}
# WHERE-NEXT: chunk.wait_span %[[LO]], %[[EXT]] plan @ag tensor "a_ptr"
# WHERE-NEXT: chunk.wait_span %{{.*}}, %[[USED]] plan @ag tensor "a_ptr"
# WHERE-NOT:  chunk.wait_span

# SIGNAL:      tile.store
# SIGNAL-NEXT: %[[HI:.*]] = tile.add %{{.*}}, %BLOCK_M {tile.origin = "insert-signals"}
# SIGNAL-NEXT: %[[CLO:.*]] = tile.call "tl.minimum"
# SIGNAL:      %[[EXT:.*]] = tile.sub %{{.*}}, %[[CLO]] {tile.origin = "insert-signals"}
# SIGNAL-NEXT: chunk.signal_span %[[CLO]], %[[EXT]] plan @rs tensor "c_ptr"

# LOOP:     scf.for
# LOOP:     chunk.wait_span
# LOOP-NOT: chunk.wait_span_loop

# MISSING: verify-sync: {{.*}}reads [{{.*}}) along dim 0 of 'a_ptr' (plan @ag), but no chunk.wait_span before it covers them
