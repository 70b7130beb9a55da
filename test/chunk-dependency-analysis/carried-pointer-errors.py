# Loop-carried pointers the analysis refuses, each with the reason (one
# kernel per case, chosen with --kernel).
# RUN: not overlap-opt %s --kernel step_inside --plan 'all-gather{tensor=x_ptr dim=0 size=N world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=INSIDE
# RUN: not overlap-opt %s --kernel replaced --plan 'all-gather{tensor=x_ptr dim=0 size=N world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=REPLACED
# RUN: not overlap-opt %s --kernel after_loop --plan 'all-gather{tensor=x_ptr dim=0 size=N world=2}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=AFTER
import triton
import triton.language as tl


@triton.jit
def step_inside(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    ptrs = x_ptr + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, N):
        acc += tl.load(ptrs)
        ptrs += tl.load(y_ptr + i)
    tl.store(y_ptr + tl.arange(0, BLOCK), acc)


@triton.jit
def replaced(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    ptrs = x_ptr + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, N):
        acc += tl.load(ptrs)
        ptrs = x_ptr + i * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + tl.arange(0, BLOCK), acc)


@triton.jit
def after_loop(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    ptrs = x_ptr + tl.arange(0, BLOCK)
    for i in range(0, N):
        ptrs += BLOCK
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.load(ptrs))

# INSIDE:   chunk-dependency-analysis: {{.*}}access of 'x_ptr': a loop-carried pointer is advanced by a step computed inside the loop (compute the step before the loop)
# REPLACED: chunk-dependency-analysis: {{.*}}access of 'x_ptr': a loop-carried pointer is replaced in the loop by something other than itself plus a step (write `ptrs += step`)
# AFTER:    chunk-dependency-analysis: {{.*}}'x_ptr' is accessed through a pointer advanced along dim 0 by a loop before it, so its rows depend on the trip count; index it from the parameter instead
