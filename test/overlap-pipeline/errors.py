# Errors of any stage stop the pipeline with that stage's message.
# RUN: not overlap-opt %s --plan 'all-reduce{tensor=x_ptr world=2}' -p overlap 2>&1 | filecheck %s --check-prefix=AR
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'overlap{order=bogus}' 2>&1 | filecheck %s --check-prefix=ORDER
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'overlap{backend=bogus}' 2>&1 | filecheck %s --check-prefix=BACKEND
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'overlap{sizes="M"}' 2>&1 | filecheck %s --check-prefix=SIZES
# RUN: not overlap-opt %s -p overlap 2>&1 | filecheck %s --check-prefix=NOPLAN
# RUN: not overlap-opt %s --plan 'reduce-scatter{tensor=y_ptr world=2}' -p overlap 2>&1 | filecheck %s --check-prefix=LOOP
import triton
import triton.language as tl


@triton.jit
def acc_rows(x_ptr, y_ptr, M, R, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :])
    for r in range(R):
        tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x * r)

# AR: chunk-dependency-analysis: errors.py:16: 'tile.load': the kernel reads 'x_ptr', the tensor a 'all-reduce' collects; only stores of it can be fused
# ORDER: overlap: unknown order 'bogus', expected one of none, arrival, rotate
# BACKEND: overlap: unknown backend 'bogus', expected one of auto, ce, sm, nccl
# SIZES: select-backend: sizes expects NAME=INT pairs separated by commas, got 'M'
# NOPLAN: chunk-dependency-analysis: the module has no chunk.plan (give one with overlap-opt --plan SPEC)
# LOOP: insert-signals: @acc_rows stores 'y_ptr' inside a loop
