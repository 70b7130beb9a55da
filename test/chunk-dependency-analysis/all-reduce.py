# An all-reduce's tensor is bound like a reduce-scatter's: the kernel's stores
# of its partial rows are bounded (tiles announce them), and the plan keeps
# both phases, the partials to the owners (step 0) and the summed rows back
# (step 1); the runtime, not the kernel, runs the second (deps.kernel_chunks).
# RUN: overlap-opt %s --plan 'all-reduce{tensor=c_ptr dim=0 world=2}' -p chunk-dependency-analysis | filecheck %s
# RUN: overlap-opt %s --plan 'all-reduce{tensor=c_ptr dim=0 world=3 order=ring}' -p chunk-dependency-analysis | filecheck %s --check-prefix=RING
# Reading the reduced tensor back is refused, as for a reduce-scatter.
# RUN: not overlap-opt %s --plan 'all-reduce{tensor=x_ptr dim=0 world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=READ
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, c_ptr, M, N, stride_xm, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], x * 2.0, mask=mask)

# CHECK: tile.store {{.*}}chunk.access = {plan = @ar, tensor = "c_ptr", dim = 0 : i64, role = "write", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M"
# CHECK: chunk.plan @ar kind "all-reduce" world 2
# CHECK: src 0 dst 1 step 0
# CHECK: src 0 dst 1 step 1
# RING: chunk.plan @ar kind "all-reduce" world 3
# RING: step 2
# READ: chunk-dependency-analysis: all-reduce.py:18: 'tile.load': the kernel reads 'x_ptr', the tensor a 'all-reduce' collects; only stores of it can be fused
