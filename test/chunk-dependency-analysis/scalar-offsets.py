# A scalar term that moves the whole tile (a head offset `head * stride_h`, a
# start row `row0 * stride_s`) is attributed to the dim whose stride
# parameter it multiplies: another dim's stride leaves the footprint alone,
# the plan dim's own stride shifts it.
# RUN: overlap-opt %s --plan 'all-gather{tensor=k_ptr world=2 size=S}' -p chunk-dependency-analysis | filecheck %s
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2 size=S}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=PRODUCT
# RUN: not overlap-opt %s --plan 'all-gather{tensor=y_ptr world=2 size=S}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=CONSTEXPR
# RUN: not overlap-opt %s --plan 'all-gather{tensor=z_ptr world=2 size=S}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=BARE
import triton
import triton.language as tl


@triton.jit
def heads(k_ptr, x_ptr, y_ptr, z_ptr, o_ptr, S, stride_s, stride_h, stride_d, GROUP: tl.constexpr,
          BLOCK: tl.constexpr, D: tl.constexpr):
    pid = tl.program_id(0)
    head = tl.program_id(1) // GROUP
    rows = tl.arange(0, BLOCK)
    ds = tl.arange(0, D)
    row0 = pid * BLOCK
    k = tl.load(k_ptr + rows[:, None] * stride_s + head * stride_h + ds[None, :] * stride_d)
    k2 = tl.load(k_ptr + row0 * stride_s + rows[:, None] * stride_s + ds[None, :] * stride_d)
    x = tl.load(x_ptr + rows[:, None] * stride_s + (head * stride_h) * 2 + ds[None, :] * stride_d)
    y = tl.load(y_ptr + rows[:, None] * stride_s + head * GROUP + ds[None, :] * stride_d)
    z = tl.load(z_ptr + rows[:, None] * stride_s + head + ds[None, :] * stride_d)
    tl.store(o_ptr + rows[:, None] * stride_s + ds[None, :] * stride_d, k + k2 + x + y + z)

# The head offset multiplies stride_h, not the sequence stride: the rows are [0, BLOCK).
# CHECK:      %k = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "k_ptr", dim = 0 : i64, role = "read", lo = "0", extent = "BLOCK"
# The start row multiplies the sequence stride: the rows are [row0, row0 + BLOCK).
# CHECK:      %k2 = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "k_ptr", dim = 0 : i64, role = "read", lo = "0 + (pid0 * BLOCK)", extent = "BLOCK"
# CHECK:      chunk.tensor "k_ptr" -> "k_ptr" shape ["S", "D1"] strides ["stride_s", "stride_k_ptr_1"]

# PRODUCT: chunk-dependency-analysis: scalar-offsets.py:23: 'tile.load': the access of 'x_ptr' adds a scalar product with no stride parameter of its own; cannot tell which dim it moves along (write it as index * <stride parameter>)
# CONSTEXPR: the access of 'y_ptr' adds a scalar product with no stride parameter of its own
# BARE: the access of 'z_ptr' adds a scalar offset with no stride; cannot tell whether it moves along dim 0
