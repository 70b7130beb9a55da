# Rows a jit helper computes (`rows = tile_rows(pid, BLOCK)`) are bounded in the helper and their start is
# recomputed in the kernel, before the call; a helper whose rows are clamped, is refused (the frontend refuses early returns).
# RUN: overlap-opt %s --kernel direct --plan 'all-gather{tensor=x_ptr dim=0 world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --kernel shifted --plan 'all-gather{tensor=x_ptr dim=0 world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=SHIFT
# RUN: not overlap-opt %s --kernel clamped --plan 'all-gather{tensor=x_ptr dim=0 world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=CLAMP
import triton
import triton.language as tl


@triton.jit
def tile_rows(pid, BLOCK: tl.constexpr):
    return pid * BLOCK + tl.arange(0, BLOCK)


@triton.jit
def clamped_rows(pid, M, BLOCK: tl.constexpr):
    return tl.minimum(pid * BLOCK + tl.arange(0, BLOCK), M - 1)


@triton.jit
def direct(x_ptr, y_ptr, M, stride, BLOCK: tl.constexpr):
    rows = tile_rows(tl.program_id(0), BLOCK)
    cols = tl.arange(0, 16)
    v = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=rows[:, None] < M)
    tl.store(y_ptr + rows[:, None] * stride + cols[None, :], v, mask=rows[:, None] < M)


@triton.jit
def shifted(x_ptr, y_ptr, M, stride, BLOCK: tl.constexpr):
    rows = tile_rows(tl.program_id(0), BLOCK) + 3
    cols = tl.arange(0, 16)
    v = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=rows[:, None] < M)
    tl.store(y_ptr + rows[:, None] * stride + cols[None, :], v, mask=rows[:, None] < M)


@triton.jit
def clamped(x_ptr, y_ptr, M, stride, BLOCK: tl.constexpr):
    rows = clamped_rows(tl.program_id(0), M, BLOCK)
    cols = tl.arange(0, 16)
    v = tl.load(x_ptr + rows[:, None] * stride + cols[None, :])
    tl.store(y_ptr + rows[:, None] * stride + cols[None, :], v)


# CHECK-LABEL: tile.func @direct
# CHECK:       %[[PID:.*]] = tile.program_id 0
# CHECK:       %[[LO:.*]] = tile.mul %[[PID]], %BLOCK
# CHECK-NEXT:  %rows = tile.call_jit @tile_rows(%[[PID]], %BLOCK)
# CHECK:       tile.load {{.*}}chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK)", extent = "BLOCK"
# SHIFT:       tile.load {{.*}}chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "3 + (pid0 * BLOCK)", extent = "BLOCK"
# CLAMP:       helper-rows.py:{{[0-9]+}}: 'tile.load': cannot bound the access of 'x_ptr' along dim 0: the rows jit helper 'clamped_rows' returns are wrapped, clamped or chosen by tl.where
