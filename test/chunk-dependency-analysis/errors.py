# Plans that do not fit the kernel: each error names the problem and exits 1.
# RUN: not overlap-opt %s -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=NOPLAN
# RUN: not overlap-opt %s --plan 'all-gather{tensor=z_ptr world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=NOKERNEL
# RUN: not overlap-opt %s --plan 'all-gather{tensor=y_ptr world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=WRITE
# RUN: not overlap-opt %s --plan 'reduce-scatter{tensor=x_ptr world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=READ
# RUN: not overlap-opt %s --plan 'all-reduce{tensor=x_ptr world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=AR
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size="R+1"}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=SIZE
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' --plan 'all-gather{tensor=idx_ptr name=agi world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=UNUSED
import triton
import triton.language as tl


@triton.jit
def copy_rows(x_ptr, y_ptr, idx_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask)
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x, mask=mask)

# NOPLAN: chunk-dependency-analysis: the module has no chunk.plan (give one with overlap-opt --plan SPEC)
# NOKERNEL: chunk-dependency-analysis: no kernel takes the plan tensor(s) z_ptr, z_ptr_ptr; name a pointer parameter with the template's tensor= option (pointer parameters: {{.*}}x_ptr, y_ptr)
# WRITE: chunk-dependency-analysis: errors.py:19: 'tile.store': the kernel writes 'y_ptr', the tensor a 'all-gather' delivers; only loads of it can be fused
# READ: chunk-dependency-analysis: errors.py:18: 'tile.load': the kernel reads 'x_ptr', the tensor a 'reduce-scatter' collects; only stores of it can be fused
# AR: chunk-dependency-analysis: errors.py:18: 'tile.load': the kernel reads 'x_ptr', the tensor a 'all-reduce' collects; only stores of it can be fused
# SIZE: chunk-dependency-analysis: plan @ag: chunk 0 uses symbol(s) R, which are neither scalar parameters of @copy_rows nor a plan tensor's extent; give the template size=<the kernel parameter holding the length of dim 0>, or size=<a name that is no parameter> to read the length from the launched tensor's shape (scalar parameters: BLOCK_M, BLOCK_N, M, N, {{.*}}stride_xm, stride_ym)
# UNUSED: chunk-dependency-analysis: plan @agi: @copy_rows never accesses 'idx_ptr'
