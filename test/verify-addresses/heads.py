# Batch and head offsets split from one program id with `//` and `%` (the
# tutorial attention's `off_hz // H` and `off_hz % H`): the coordinates have
# no mask, so the proof bounds them by the launch: `off_hz % H` lies in
# [0, H - 1] and `off_hz // H` in [0, (npid1 - 1) // H], and it records that
# the proof divides by H (H >= 1) and keeps each coordinate in a dim of its
# own, which the runtime checks at every launch (runtime/assumptions.py).
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=2 size=S world=2}' -p 'chunk-dependency-analysis,insert-signals,verify-addresses{strict=true}' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def per_head_copy(x_ptr, y_ptr, H, S, stride_xz, stride_xh, stride_xs, stride_yz, stride_yh, stride_ys,
                  BLOCK_S: tl.constexpr, HEAD_DIM: tl.constexpr):
    pid = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    rows = pid * BLOCK_S + tl.arange(0, BLOCK_S)
    cols = tl.arange(0, HEAD_DIM)
    x = tl.load(x_ptr + off_z * stride_xz + off_h * stride_xh + rows[:, None] * stride_xs + cols[None, :],
                mask=rows[:, None] < S)
    tl.store(y_ptr + off_z * stride_yz + off_h * stride_yh + rows[:, None] * stride_ys + cols[None, :], x,
             mask=rows[:, None] < S)

# CHECK:      chunk.assume = [{where = "heads.py:{{[0-9]+}}: 'tile.load'", guards = [], least = {
# CHECK-SAME: H = 1 : i64
# CHECK-SAME: in_row = {param = "x_ptr", dim = 2 : i64, stride = "stride_xs", groups = [
# CHECK-SAME: ["stride_xh", "0", "H - 1", false]
# CHECK-SAME: ["stride_xz", "0", "TDiv(npid1 - 1, H)", false]
