# An index widened to int64 (`offs.to(tl.int64)`, written against int32 overflow) keeps its rows; a
# narrowing or bit cast may change them and is refused naming the op.
# RUN: overlap-opt %s --kernel whole --plan 'all-gather{tensor=x_ptr dim=0 world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --kernel arange --plan 'all-gather{tensor=x_ptr dim=0 world=2}' -p chunk-dependency-analysis | filecheck %s --check-prefix=ARANGE
# RUN: not overlap-opt %s --kernel narrow --plan 'all-gather{tensor=x_ptr dim=0 world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=NARROW
import triton
import triton.language as tl


@triton.jit
def whole(x_ptr, y_ptr, M, stride, BLOCK: tl.constexpr):
    rows = (tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)).to(tl.int64)
    cols = tl.arange(0, 16)
    v = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=rows[:, None] < M)
    tl.store(y_ptr + rows[:, None] * stride + cols[None, :], v, mask=rows[:, None] < M)


@triton.jit
def arange(x_ptr, y_ptr, M, stride, BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    cols = tl.arange(0, 16)
    v = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=rows[:, None] < M)
    tl.store(y_ptr + rows[:, None] * stride + cols[None, :], v, mask=rows[:, None] < M)


@triton.jit
def narrow(x_ptr, y_ptr, M, stride, BLOCK: tl.constexpr):
    rows = (tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)).to(tl.int16)
    cols = tl.arange(0, 16)
    v = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=rows[:, None] < M)
    tl.store(y_ptr + rows[:, None] * stride + cols[None, :], v, mask=rows[:, None] < M)

# CHECK: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK)", extent = "BLOCK"
# ARANGE: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(int64(pid0) * BLOCK)", extent = "BLOCK"
# NARROW: widened-index.py:30: 'tile.load': cannot bound the access of 'x_ptr' along dim 0: the index is not 'scalar + tl.arange(0, BLOCK)' (found tile.cast)
