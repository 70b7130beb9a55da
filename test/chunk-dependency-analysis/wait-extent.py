# A read's wait must stay inside the plan's extent: chunks tile [0, extent),
# and a wait for rows past it meets no chunk, returns at once and lets the
# tile read rows nothing delivered. An attention kernel that folds its head
# offset into the sequence rows (`Q += (off_hz * N_CTX) * stride_qm`, or the
# tutorial's preprocessing written `(off_hz * N_CTX) * HEAD_DIM`) moves each
# head's rows a whole extent of N_CTX: refused naming the line, even with the
# rows masked (the mask bounds the index before the head's shift). A mask
# on the rows themselves (`rows < M`, `rows >= 0`) instead cuts the wait to
# the rows read, so the grid's fully masked last tile waits for nothing and
# still fuses; a plain kernel fuses as before.
# RUN: not overlap-opt %s --kernel attn_fwd_heads --plan 'all-gather{tensor=q_ptr world=2 size=N_CTX}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=HEADS
# RUN: not overlap-opt %s --kernel bwd_preprocess --plan 'all-gather{tensor=o_ptr world=2 size=N_CTX}' -p overlap -t triton 2>&1 | filecheck %s --check-prefix=PRE
# RUN: overlap-opt %s --kernel masked_rows --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p overlap -t triton | filecheck %s --check-prefix=MASKED
# RUN: overlap-opt %s --kernel plain_rows --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p overlap -t triton | filecheck %s --check-prefix=PLAIN
import triton
import triton.language as tl


@triton.jit
def attn_fwd_heads(q_ptr, o_ptr, N_CTX, stride_qm, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    q_ptr += (off_hz * N_CTX) * stride_qm
    o_ptr += (off_hz * N_CTX) * stride_qm
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + offs_m[:, None] * stride_qm + offs_d[None, :], mask=offs_m[:, None] < N_CTX, other=0.0)
    tl.store(o_ptr + offs_m[:, None] * stride_qm + offs_d[None, :], q * 2.0, mask=offs_m[:, None] < N_CTX)


@triton.jit
def bwd_preprocess(o_ptr, delta_ptr, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    off_n = tl.arange(0, HEAD_DIM)
    o = tl.load(o_ptr + (off_hz * N_CTX) * HEAD_DIM + off_m[:, None] * HEAD_DIM + off_n[None, :])
    tl.store(delta_ptr + off_hz * N_CTX + off_m, tl.sum(o, axis=1))


@triton.jit
def masked_rows(x_ptr, y_ptr, M, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=rows[:, None] < M, other=0.0)
    tl.store(y_ptr + rows[:, None] * stride_xm + cols[None, :], x, mask=rows[:, None] < M)


@triton.jit
def plain_rows(x_ptr, y_ptr, M, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :])
    tl.store(y_ptr + rows[:, None] * stride_xm + cols[None, :], x)

# HEADS: overlap-opt: error: chunk-dependency-analysis: wait-extent.py:27: 'tile.load': the access of 'q_ptr' along dim 0: its rows start at {{.*}}N_CTX*pid1{{.*}}, which moves by N_CTX per step of program id 1, at least the plan's extent N_CTX: for all but one value of program id 1 it waits for rows outside [0, N_CTX), where no chunk lies{{.*}}give it a stride parameter of its own (`off_hz * stride_h`)

# PRE: overlap-opt: error: chunk-dependency-analysis: wait-extent.py:36: 'tile.load': the access of 'o_ptr' along dim 0: its rows start at BLOCK_M*pid0 + N_CTX*pid1, which moves by N_CTX per step of program id 1

# MASKED-LABEL: def masked_rows(
# MASKED:       [[LO:tmp[_0-9]*]] = tmp * BLOCK_M
# MASKED:       syn_wait_span(syn_flags, syn_wait_ag_x_ptr_tab, syn_wait_ag_x_ptr_n, [[LO]], tl.minimum([[LO]] + BLOCK_M, M),
# MASKED-NEXT:  x = tl.load(x_ptr

# PLAIN-LABEL: def plain_rows(
# PLAIN:       [[LO:tmp[_0-9]*]] = tmp * BLOCK_M
# PLAIN:       syn_wait_span(syn_flags, syn_wait_ag_x_ptr_tab, syn_wait_ag_x_ptr_n, [[LO]], [[LO]] + BLOCK_M,
# PLAIN-NEXT:  x = tl.load(x_ptr
