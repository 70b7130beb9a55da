# The proof is about true integer values; the device computes an offset in
# 32 bits unless an operand is 64-bit, and wraps. verify-addresses records,
# per access, the bounds at a launch of every 32-bit value the address is built
# from (chunk.assume, int32), for the runtime to check; widened parts need only
# the value that is widened; a row with no bound in launch sizes (a `while`
# walk, masked) is bounded by the tensor's span less the other parts.
# RUN: overlap-opt %s --kernel rows --plan 'all-gather{tensor=x_ptr dim=0 world=2 size=M}' -p 'chunk-dependency-analysis,insert-signals,verify-addresses{strict=true}' | filecheck %s --check-prefix=ROWS
# RUN: overlap-opt %s --kernel widened --plan 'all-gather{tensor=x_ptr dim=0 world=2 size=M}' -p 'chunk-dependency-analysis,insert-signals,verify-addresses{strict=true}' | filecheck %s --check-prefix=WIDE
# RUN: overlap-opt %s --kernel walk --plan 'all-gather{tensor=x_ptr dim=0 world=2 size=n}' -p 'chunk-dependency-analysis,insert-signals,verify-addresses{strict=true}' | filecheck %s --check-prefix=WALK
# Error: a 32-bit product widened only after it is computed, from a value with no
# bound in launch sizes: it may have wrapped first.
# RUN: not overlap-opt %s --kernel late_widen --plan 'all-gather{tensor=x_ptr dim=0 world=2 size=n}' -p 'chunk-dependency-analysis,insert-signals,verify-addresses{strict=true}' 2>&1 | filecheck %s --check-prefix=LATE
import triton
import triton.language as tl


@triton.jit
def rows(x_ptr, y_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    r = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    c = tl.arange(0, BLOCK_N)
    m = (r[:, None] < M) & (c[None, :] < N)
    tl.store(y_ptr + r[:, None] * N + c[None, :], tl.load(x_ptr + r[:, None] * stride_xm + c[None, :], mask=m), mask=m)


@triton.jit
def widened(x_ptr, y_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    r = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    c = tl.arange(0, BLOCK_N)
    m = (r[:, None] < M) & (c[None, :] < N)
    tl.store(y_ptr + r[:, None] * N + c[None, :], tl.load(x_ptr + r[:, None] * stride_xm + c[None, :], mask=m), mask=m)


@triton.jit
def walk(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    block = tl.program_id(0)
    while block < tl.cdiv(n, BLOCK):
        offs = block * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
        block += tl.num_programs(0)


@triton.jit
def late_widen(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    block = tl.program_id(0)
    while block < tl.cdiv(n, BLOCK):
        start = (block * BLOCK).to(tl.int64)
        offs = start + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
        block += tl.num_programs(0)

# The row term r * stride_xm and the column c, each over the lanes the mask keeps and every program;
# then the values the mask compares (c and r), over every lane: the mask's verdict is what the clamp relies on.
# ROWS: int32 = {{.}}["int32-offsets.py:22: 'tile.mul'", "0", "Min(M*stride_xm - stride_xm, BLOCK_M*stride_xm*(npid0 - 1) + BLOCK_M*stride_xm - stride_xm)"], ["int32-offsets.py:22: 'tile.expand_dims'", "0", "Min(BLOCK_N - 1, N - 1)"], ["int32-offsets.py:21: 'tile.expand_dims'", "0", "BLOCK_N - 1"], ["int32-offsets.py:21: 'tile.expand_dims'", "0", "BLOCK_M*(npid0 - 1) + BLOCK_M - 1"]]

# Only the widened program id and the 32-bit column meet 64-bit values; the product itself is 64-bit.
# WIDE-NOT: 'tile.mul'", "0"
# WIDE: int32 = {{.}}["int32-offsets.py:30: 'tile.expand_dims'", "0", "Min(BLOCK_N - 1, N - 1)"], ["int32-offsets.py:29: 'tile.expand_dims'", "0", "BLOCK_N - 1"]]

# The walked block has no bound in launch sizes: the offset lies in the tensor's span (the mask's
# `offs < n` compares the same unbounded value, which is left unchecked).
# WALK: int32 = {{.}}["int32-offsets.py:37: 'tile.add'", "0", "syn_span_x_ptr - 1"]]

# LATE: verify-addresses: int32-offsets.py:48: 'tile.load' is unproved: int32-offsets.py:46: 'tile.mul' has no bound in the launch's sizes, so the proof cannot show the device computes it without int32 overflow; widen it with .to(tl.int64)


# verify-sync states the signs it took: the tl.constexpr parameters its proofs read, least 0, checked at launch.
# RUN: overlap-opt %s --kernel rows --plan 'all-gather{tensor=x_ptr dim=0 world=2 size=M}' -p 'chunk-dependency-analysis,insert-signals,verify-sync' | filecheck %s --check-prefix=SIGNS
# SIGNS: chunk.assume = [{where = "verify-sync: the tl.constexpr parameters its proofs read", guards = [], least = {BLOCK_M = 0 : i64}}]
