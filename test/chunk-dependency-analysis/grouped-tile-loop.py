# A GROUP_M swizzle (Triton's L2-friendly tile order) inside a persistent
# tile loop: the last group's size is `min(num_m - first_m, GROUP_M)`, so the
# row footprint is a host expression that calls min. It stays exact (not
# "?"), and the graph evaluates it per tile.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p chunk-dependency-analysis | filecheck %s
import triton
import triton.language as tl


@triton.jit
def grouped(x_ptr, y_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr,
            PROGRAMS: tl.constexpr):
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    for tile in range(tl.program_id(0), num_m * num_n, PROGRAMS):
        first_m = (tile // (GROUP_M * num_n)) * GROUP_M
        group_rows = min(num_m - first_m, GROUP_M)
        pid_m = first_m + (tile % group_rows)
        rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
        tl.store(y_ptr + rows[:, None] * stride_xm + cols[None, :], tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :]))

# CHECK: tile.func @grouped
# CHECK-SAME: chunk.tile_loop = "(cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N))"
# CHECK: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "((((pid0 // (GROUP_M * cdiv(N, BLOCK_N))) * GROUP_M) + (pid0 % min((cdiv(M, BLOCK_M) - ((pid0 // (GROUP_M * cdiv(N, BLOCK_N))) * GROUP_M)), GROUP_M))) * BLOCK_M)", extent = "BLOCK_M"

# max is the other builtin a host expression may call.
# RUN: sed -e 's/min(num_m - first_m, GROUP_M)/max(first_m - first_m, GROUP_M)/' %s > %t.max.py
# RUN: overlap-opt %t.max.py --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p chunk-dependency-analysis | filecheck %s --check-prefix=MAX
# MAX: lo = "{{.*}}max({{.*}}, GROUP_M){{.*}}", extent = "BLOCK_M"

# tl.minimum / tl.maximum of two scalars are min / max too.
# RUN: sed -e 's/min(num_m - first_m, GROUP_M)/tl.maximum(num_m - first_m, GROUP_M)/' %s > %t.tlmax.py
# RUN: overlap-opt %t.tlmax.py --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p chunk-dependency-analysis | filecheck %s --check-prefix=TLMAX
# TLMAX: lo = "{{.*}}max((cdiv(M, BLOCK_M) - {{.*}}, GROUP_M){{.*}}", extent = "BLOCK_M"

# Any other call (here tl.abs) is outside the host language: the footprint is unknown.
# RUN: sed -e 's/min(num_m - first_m, GROUP_M)/tl.abs(num_m - first_m)/' %s > %t.other.py
# RUN: overlap-opt %t.other.py --plan 'all-gather{tensor=x_ptr world=2 size=M}' -p chunk-dependency-analysis | filecheck %s --check-prefix=OTHER
# OTHER: tile.load {{.*}}lo = "?"
