# Clamps the analysis refuses, each naming the line and the form that works.
# RUN: not overlap-opt %s --kernel two_blocks --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=BLOCKS
# RUN: not overlap-opt %s --kernel where_store --plan 'reduce-scatter{tensor=c_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=STORE
# RUN: not overlap-opt %s --kernel shifted --plan 'all-gather{tensor=X dim=0 size=M world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=SHIFT
# RUN: not overlap-opt %s --kernel where_block --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=WBLOCK
# RUN: not overlap-opt %s --kernel twice --plan 'all-gather{tensor=a_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=TWICE
import triton
import triton.language as tl


@triton.jit
def two_blocks(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs = tl.minimum(offs, tl.arange(0, BLOCK_M) + M)
    ds = tl.arange(0, D)
    tl.store(c_ptr + offs[:, None] * stride_am + ds[None, :], tl.load(a_ptr + offs[:, None] * stride_am + ds[None, :]))


@triton.jit
def where_store(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs = tl.where(offs < M, offs, 0)
    ds = tl.arange(0, D)
    tl.store(c_ptr + offs[:, None] * stride_am + ds[None, :], tl.load(a_ptr + offs[:, None] * stride_am + ds[None, :]))


@triton.jit
def shifted(X, Y, M, stride, BLOCK_M: tl.constexpr, N: tl.constexpr):
    X += tl.program_id(1) * stride
    rows = tl.minimum(tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), M - 1)
    cols = tl.arange(0, N)
    tl.store(Y + rows[:, None] * stride + cols[None, :], tl.load(X + rows[:, None] * stride + cols[None, :]))


@triton.jit
def where_block(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs = tl.where(offs < M, offs, tl.arange(0, BLOCK_M))
    ds = tl.arange(0, D)
    tl.store(c_ptr + offs[:, None] * stride_am + ds[None, :], tl.load(a_ptr + offs[:, None] * stride_am + ds[None, :]))


@triton.jit
def twice(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, D: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs = tl.where(offs < M, offs, 0)
    offs = tl.where(offs > 2, offs, 1)
    ds = tl.arange(0, D)
    tl.store(c_ptr + offs[:, None] * stride_am + ds[None, :], tl.load(a_ptr + offs[:, None] * stride_am + ds[None, :]))

# BLOCKS: chunk-dependency-analysis: {{.*}}clamped-offset-errors.py:16: {{.*}}cannot bound the access of 'a_ptr' along dim 0: `tl.minimum` of the index needs one block of rows and scalar bounds (e.g. `tl.minimum(offs, M - 1)`)
# STORE:  chunk-dependency-analysis: {{.*}}clamped-offset-errors.py:24: {{.*}}'c_ptr' is stored through `tl.where` of its index along dim 0, which writes two row ranges; store with `mask=` on the unclamped index instead
# SHIFT:  chunk-dependency-analysis: {{.*}}clamped-offset-errors.py:32: {{.*}}'X' is accessed through a clamped index (`tl.minimum`/`tl.maximum`/`tl.where`) along dim 0 and also moved along it by a scalar offset or a loop; clamp the whole row index instead
# WBLOCK: chunk-dependency-analysis: {{.*}}clamped-offset-errors.py:40: {{.*}}`tl.where` of the index needs one block of rows and a scalar for the other lanes (e.g. `tl.where(offs < M, offs, 0)`)
# TWICE:  chunk-dependency-analysis: {{.*}}clamped-offset-errors.py:49: {{.*}}the index goes through `tl.where` twice; combine the conditions in one `tl.where`
