# A scalar row (`row * stride`, or a pointer advanced by it) plus another
# offset along the same dim reads another row: the wait must follow it. The
# dim's stride added alone is one row on; a second `k * stride` is k rows;
# the mask's bound on that row cuts the wait (the last row's neighbour is
# past the extent). A parameter added alone (`+ n_cols`) is a column only
# if the columns it reaches stay below the row stride, which the launch
# checks (in_row); a product with a compared length (`2 * n_cols`) may move
# whole rows and is refused.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2 size=n_rows stride=stride}' -p chunk-dependency-analysis | filecheck %s --check-prefix=STRIDE
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2 size=n_rows stride=stride}' -p overlap -t triton | filecheck %s --check-prefix=CUT
# RUN: overlap-opt %s --plan 'all-gather{tensor=b_ptr world=2 size=n_rows stride=stride}' -p chunk-dependency-analysis | filecheck %s --check-prefix=SECOND
# RUN: overlap-opt %s --plan 'all-gather{tensor=c_ptr world=2 size=n_rows stride=stride}' -p chunk-dependency-analysis | filecheck %s --check-prefix=LENGTH
# RUN: not overlap-opt %s --plan 'all-gather{tensor=d_ptr world=2 size=n_rows stride=stride}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=PRODUCT
import triton
import triton.language as tl


@triton.jit
def neighbours(a_ptr, b_ptr, c_ptr, d_ptr, o_ptr, stride, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    keep = cols < n_cols
    a_ptr += row * stride
    a = tl.load(a_ptr + stride + cols, mask=keep & (cols * 0 + row + 1 < n_rows), other=0.0)
    b = tl.load(b_ptr + row * stride + (-1) * stride + cols, mask=keep & (cols * 0 + row - 1 >= 0), other=0.0)
    c = tl.load(c_ptr + row * stride + n_cols + cols, mask=keep, other=0.0)
    d = tl.load(d_ptr + row * stride + 2 * n_cols + cols, mask=keep, other=0.0)
    tl.store(o_ptr + row * stride + cols, a + b + c + d, mask=keep)

# STRIDE: %a = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "a_ptr", dim = 0 : i64, role = "read", lo = "pid0 + 1", extent = "1"
# CUT: tmp = row + 1
# CUT: syn_wait_span(syn_flags, syn_wait_ag_a_ptr_tab, syn_wait_ag_a_ptr_n, tmp, tl.minimum(tmp + 1, n_rows),
# SECOND: %b = tile.load {{.*}}chunk.access = {plan = @ag, tensor = "b_ptr", dim = 0 : i64, role = "read", lo = "pid0 + -1", extent = "1"
# LENGTH: %c = tile.load {{.*}}lo = "pid0", extent = "1", {{.*}}in_row = "(n_cols) + (n_cols)", row_stride = "stride"
# PRODUCT: next-row.py:27: 'tile.load': the access of 'd_ptr' adds a scalar times n_cols, which is not the stride of dim 0 (stride) nor of another dim the plan or the access models
