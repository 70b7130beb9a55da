# A scalar offset scaled by a length: attention-backward preprocessing
# (Triton's fused-attention tutorial) loads O at `off_hz * HEAD_DIM * N_CTX +
# off_m * HEAD_DIM`, so each head moves the rows by off_hz * N_CTX. The
# product holds dim 0's stride (HEAD_DIM) with another length, so it is
# refused with the form that gets the shift right; written that way, the
# rows include the head's shift, which moves them by a whole extent per head:
# with size=N_CTX every head but the first waits outside the plan's rows, so
# it is refused naming the line (wait-extent.py has more); with an extent that
# holds every head's rows it fuses. A head stride declared before the row
# stride (an outer dim: (H, S, D) layout) may move whole rows: refused.
# The first may not be read as a scalar row of stride N_CTX (a length, not
# a stride); for the second, with more address dims than the plan's tensor
# has, the plan must name the stride of its dim.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=o_ptr world=2 size=N_CTX}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=LENGTH
# RUN: not overlap-opt %s --plan 'all-gather{tensor=p_ptr world=2 size=N_CTX}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=REWRITTEN
# RUN: overlap-opt %s --plan 'all-gather{tensor=p_ptr world=2 size=HN}' -p chunk-dependency-analysis | filecheck %s --check-prefix=ALL-HEADS
# RUN: not overlap-opt %s --plan 'all-gather{tensor=q_ptr world=2 size=S}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=OUTER
import triton
import triton.language as tl


@triton.jit
def preprocess(o_ptr, delta_ptr, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    off_n = tl.arange(0, HEAD_DIM)
    o = tl.load(o_ptr + off_hz * HEAD_DIM * N_CTX + off_m[:, None] * HEAD_DIM + off_n[None, :])
    tl.store(delta_ptr + off_hz * N_CTX + off_m, tl.sum(o, axis=1))


@triton.jit
def preprocess_rows(p_ptr, delta_ptr, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    off_n = tl.arange(0, HEAD_DIM)
    p = tl.load(p_ptr + (off_hz * N_CTX) * HEAD_DIM + off_m[:, None] * HEAD_DIM + off_n[None, :])
    tl.store(delta_ptr + off_hz * N_CTX + off_m, tl.sum(p, axis=1))


@triton.jit
def heads_outer(q_ptr, out_ptr, S, stride_qh, stride_qs, stride_qd, BLOCK: tl.constexpr, D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    head = tl.program_id(1)
    ds = tl.arange(0, D)
    q = tl.load(q_ptr + head * stride_qh + rows[:, None] * stride_qs + ds[None, :] * stride_qd)
    tl.store(out_ptr + rows[:, None] * D + ds[None, :], q)

# LENGTH: overlap-opt: error: chunk-dependency-analysis: scaled-offset.py:{{[0-9]+}}: 'tile.load': the access of 'o_ptr' adds a product of 3 factors that contains dim 0's stride HEAD_DIM: it moves the tile by whole rows, a number of rows the kernel never computes; write it as (off_hz * N_CTX) * HEAD_DIM
# REWRITTEN: overlap-opt: error: chunk-dependency-analysis: scaled-offset.py:{{[0-9]+}}: 'tile.load': the access of 'p_ptr' along dim 0: its rows start at BLOCK_M*pid0 + N_CTX*pid1, which moves by N_CTX per step of program id 1, at least the plan's extent N_CTX
# ALL-HEADS: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "p_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M) + (pid1 * N_CTX)", extent = "BLOCK_M"
# OUTER: overlap-opt: error: chunk-dependency-analysis: scaled-offset.py:{{[0-9]+}}: 'tile.load': the address of 'q_ptr' has 3 dims (strides stride_qh, stride_qs, stride_qd), the plan's tensor 2; give the plan option stride=<the stride parameter of dim 0>
