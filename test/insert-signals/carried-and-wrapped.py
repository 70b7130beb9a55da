# Waits for loop-carried pointers, wrapped offsets and scalar rows.
# A K-gather through `a_ptrs += BLOCK_K * stride_ak` walks the loop: one
# wait per iteration at lo = k * BLOCK_K (the loop counts from 0 by 1),
# skipping the chunks the previous iteration checked (step BLOCK_K).
# RUN: overlap-opt %s --kernel mm --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2}' -p insert-signals | filecheck %s --check-prefix=WALK
# A row gather through `(pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M`: two
# waits before the loop, [s, s + BLOCK_M) and the wrapped [0, s + BLOCK_M - M).
# RUN: overlap-opt %s --kernel mm --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p insert-signals | filecheck %s --check-prefix=WRAP
# A loop over k from 1 by 2 * BLOCK: the iteration number is (k - 1) // (2 * BLOCK).
# RUN: overlap-opt %s --kernel odd --plan 'all-gather{tensor=x_ptr dim=0 size=N world=2}' -p insert-signals | filecheck %s --check-prefix=ODD
# One row per program (`X += row * stride`): wait [row, row + 1), signal it.
# RUN: overlap-opt %s --kernel rows --plan 'all-gather{tensor=X dim=0 size=M_ROWS world=2}' -p insert-signals | filecheck %s --check-prefix=ROW
# RUN: overlap-opt %s --kernel rows --plan 'reduce-scatter{tensor=Y dim=0 size=M_ROWS world=2}' -p insert-signals | filecheck %s --check-prefix=ROWRS
import triton
import triton.language as tl


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_cm,
       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_am = (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_am[:, None] * stride_cm + offs_n[None, :], acc)


@triton.jit
def odd(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    ptrs = x_ptr + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(1, N, 2 * BLOCK):
        acc += tl.load(ptrs)
        ptrs += 2 * BLOCK
    tl.store(y_ptr + tl.arange(0, BLOCK), acc)


@triton.jit
def rows(Y, X, stride, M_ROWS, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < N, other=0.0)
    tl.store(Y + cols, x / tl.sum(x, axis=0), mask=cols < N)

# WALK:      scf.for %k = %{{.*}} to %{{.*}} step %{{.*}} iter_args
# WALK-NEXT:   %[[MOVED:.*]] = tile.mul %k, %BLOCK_K {tile.origin = "insert-signals"}
# WALK-NEXT:   %[[LO:.*]] = tile.add %{{.*}}, %[[MOVED]] {tile.origin = "insert-signals"}
# WALK-NEXT:   chunk.wait_span_loop %[[LO]], %BLOCK_K first %{{.*}} step %BLOCK_K plan @ag tensor "a_ptr"
# WALK-NEXT:   tile.load %a_ptrs

# WRAP:      %[[S:.*]] = tile.mod %{{.*}}, %M {tile.origin = "insert-signals"}
# WRAP-NEXT: %[[E:.*]] = tile.add %[[S]], %BLOCK_M {tile.origin = "insert-signals"}
# WRAP-NEXT: %[[REST:.*]] = tile.sub %[[E]], %M {tile.origin = "insert-signals"}
# WRAP-NEXT: %[[ZERO:.*]] = arith.constant {tile.origin = "insert-signals"} 0 : i32
# WRAP-NEXT: chunk.wait_span %[[S]], %BLOCK_M plan @ag tensor "a_ptr"
# WRAP-NEXT: chunk.wait_span %[[ZERO]], %[[REST]] plan @ag tensor "a_ptr"
# WRAP-NEXT: scf.for
# WRAP-NOT:  chunk.wait_span

# ODD:       %[[STEP:.*]] = tile.mul %{{.*}}, %BLOCK {tile.origin = "insert-signals"}
# ODD-NEXT:  scf.for %k
# ODD:         %[[SUB:.*]] = tile.sub %k, %{{.*}} {tile.origin = "insert-signals"}
# ODD-NEXT:    %[[ITER:.*]] = tile.floordiv %[[SUB]], %{{.*}} {tile.origin = "insert-signals"}
# ODD-NEXT:    %[[MOVED:.*]] = tile.mul %[[ITER]], %{{.*}} {tile.origin = "insert-signals"}
# ODD-NEXT:    %[[LO:.*]] = tile.add %{{.*}}, %[[MOVED]] {tile.origin = "insert-signals"}
# ODD-NEXT:    chunk.wait_span_loop %[[LO]], %BLOCK first %{{.*}} step %[[STEP]] plan @ag tensor "x_ptr"

# ROW:       tile.func @rows
# ROW-NEXT:  %[[ONE:.*]] = arith.constant 1 : i32
# ROW:       %row = tile.program_id 0
# ROW:       chunk.wait_span %row, %[[ONE]] plan @ag tensor "X"
# ROW-NEXT:  %x = tile.load
# ROWRS:     tile.func @rows
# ROWRS:     tile.store
# ROWRS-NEXT: chunk.signal_span %row, %{{.*}} plan @rs tensor "Y"
