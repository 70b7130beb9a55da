# A row index with two scalar terms along the plan's dim, `(pid * BLOCK +
# tl.arange(0, BLOCK)) + row0`: the footprint keeps both, so the rows read
# are [row0 + pid * BLOCK, + BLOCK), not the tile's rows without the shift.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p chunk-dependency-analysis | filecheck %s
import triton
import triton.language as tl


@triton.jit
def shifted_rows(x_ptr, out_ptr, M, row0, stride_m, BLOCK: tl.constexpr, D: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK + tl.arange(0, BLOCK)
    rows = rows + row0
    ds = tl.arange(0, D)
    x = tl.load(x_ptr + rows[:, None] * stride_m + ds[None, :], mask=rows[:, None] < M)
    tl.store(out_ptr + rows[:, None] * D + ds[None, :], x)

# CHECK: %x = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "row0 + (pid0 * BLOCK)", extent = "BLOCK"
