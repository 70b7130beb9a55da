# Integer arithmetic of constexpr parameters (`BLOCK_M // 2`) used twice (the rows and, after insert-signals,
# their wait) is written at each use: bound to a temporary it is an int in Triton's interpreter, and
# `tl.arange(0, tmp)` fails there ("arange's arguments must be of type tl.constexpr"). A value the source
# names stays a statement.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2 size=M stride=stride_am}' -p overlap -t triton | filecheck %s
import triton
import triton.language as tl


@triton.jit
def half_rows(a_ptr, c_ptr, M, stride_am, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * (BLOCK_M // 2) + tl.arange(0, BLOCK_M // 2)
    ks = tl.arange(0, BLOCK_K)
    quarter = BLOCK_K // 4
    a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :], mask=rows[:, None] < M, other=0.0)
    tl.store(c_ptr + rows * quarter, tl.sum(a, axis=1), mask=rows < M)

# CHECK:     def half_rows(
# CHECK-NOT: = BLOCK_M // 2
# CHECK:     rows = {{.*}} + tl.arange(0, BLOCK_M // 2)
# CHECK:     quarter = BLOCK_K // 4
# CHECK:     syn_wait_span({{.*}}tl.minimum({{.*}} + BLOCK_M // 2, M)
