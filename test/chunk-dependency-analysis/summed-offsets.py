# A batch and head offset summed before it is added (the attention tutorial's
# `qvk_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh`,
# also widened as a whole, `(off_z * stride_qz + off_h * stride_qh).to(tl.int64)`,
# or added in place, `Q += ...`) is each of its products: each moves along the
# dim whose stride it multiplies, so the sequence rows are the block's. A sum
# whose product has no stride parameter of its own is still refused.
# RUN: overlap-opt %s --kernel summed --plan 'all-gather{tensor=Q dim=2 size=N_CTX world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --kernel widened --plan 'all-gather{tensor=Q dim=2 size=N_CTX world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --kernel in_place --plan 'all-gather{tensor=Q dim=2 size=N_CTX world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --kernel summed --plan 'all-gather{tensor=Q dim=1 size=H stride=stride_qh world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=HEAD
# RUN: not overlap-opt %s --kernel no_stride --plan 'all-gather{tensor=Q dim=2 size=N_CTX world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=BARE
import triton
import triton.language as tl


@triton.jit
def summed(Q, O, stride_qz, stride_qh, stride_qm, stride_qk, H, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    qvk_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    mask = offs_m[:, None] < N_CTX
    q = tl.load(Q + qvk_offset + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk, mask=mask)
    tl.store(O + qvk_offset + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk, q, mask=mask)


@triton.jit
def widened(Q, O, stride_qz, stride_qh, stride_qm, stride_qk, H, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    qvk_offset = (off_hz // H * stride_qz + off_hz % H * stride_qh).to(tl.int64)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    mask = offs_m[:, None] < N_CTX
    q = tl.load(Q + qvk_offset + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk, mask=mask)
    tl.store(O + qvk_offset + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk, q, mask=mask)


@triton.jit
def in_place(Q, O, stride_qz, stride_qh, stride_qm, stride_qk, H, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    Q += (off_hz // H).to(tl.int64) * stride_qz + (off_hz % H).to(tl.int64) * stride_qh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    mask = offs_m[:, None] < N_CTX
    q = tl.load(Q + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk, mask=mask)
    tl.store(O + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk, q, mask=mask)


@triton.jit
def no_stride(Q, O, stride_qz, stride_qh, stride_qm, stride_qk, H, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    qvk_offset = off_hz * stride_qz + off_hz * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + qvk_offset + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk)
    tl.store(O + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk, q)

# CHECK: %q = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "Q", dim = 2 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M"
# CHECK: chunk.tensor "Q" -> "Q" shape ["D0", "D1", "N_CTX"] strides ["stride_Q_0", "stride_Q_1", "stride_qm"]
# HEAD: %q = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "Q", dim = 1 : i64, role = "read", lo = "int64((pid1 % H))", extent = "1"
# BARE: summed-offsets.py:61: 'tile.load': the access of 'Q' adds a scalar product with no stride parameter of its own; cannot tell which dim it moves along (write it as index * <stride parameter>)
