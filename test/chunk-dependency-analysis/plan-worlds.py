# The plans of one kernel share one world: a fused launch runs on one set of ranks.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=3}' --plan 'reduce-scatter{tensor=y_ptr world=3}' -p chunk-dependency-analysis | filecheck %s
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' --plan 'reduce-scatter{tensor=y_ptr world=3}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=TWO
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=4}' --plan 'reduce-scatter{tensor=y_ptr world=2}' --plan 'all-gather{tensor=z_ptr name=agz world=4}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=THREE
import triton
import triton.language as tl


@triton.jit
def add_rows(x_ptr, z_ptr, y_ptr, M, N, stride_xm, stride_zm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask)
    z = tl.load(z_ptr + rows[:, None] * stride_zm + cols[None, :], mask=mask)
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x + z, mask=mask)

# CHECK: tile.load{{.*}}chunk.access = {plan = @ag, tensor = "x_ptr"
# CHECK: tile.store{{.*}}chunk.access = {plan = @rs, tensor = "y_ptr"
# CHECK: chunk.plan @ag kind "all-gather" world 3
# CHECK: chunk.plan @rs kind "reduce-scatter" world 3
# TWO: chunk-dependency-analysis: the plans of one kernel must share their world, but @ag world=2, @rs world=3: a fused launch runs on one set of ranks; give every plan the same world=
# THREE: chunk-dependency-analysis: the plans of one kernel must share their world, but @rs world=2, @ag world=4
