# A scalar row whose stride is a constexpr parameter the plan names (`X += row * N`, stride=N) is one row
# per program; unnamed, a constexpr factor is no row stride and the refusal names the fix.
# RUN: overlap-opt %s --plan 'all-gather{tensor=X dim=0 world=2 size=M stride=N}' -p chunk-dependency-analysis | filecheck %s
# RUN: not overlap-opt %s --plan 'all-gather{tensor=X dim=0 world=2 size=M}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=UNNAMED
# RUN: not overlap-opt %s --plan 'all-gather{tensor=X dim=0 world=2 size=M stride=BLOCK}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=OTHER
import triton
import triton.language as tl


@triton.jit
def double_rows(X, Y, N: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * N
    Y += row * N
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < N, other=0.0)
    tl.store(Y + cols, x * 2.0, mask=cols < N)

# CHECK: tile.load {{.*}}chunk.access = {plan = @ag, tensor = "X", dim = 0 : i64, role = "read", lo = "pid0", extent = "1"
# UNNAMED: constexpr-row-stride.py:16: 'tile.load': the plan's extent of dim 0 is M, but the index of 'X' it takes as that dim's is masked with < N; give size= and stride= of the dim the plan splits
# OTHER: constexpr-row-stride.py:16: 'tile.load': the plan's stride=BLOCK multiplies no index of the access of 'X'
