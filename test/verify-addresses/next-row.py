# An idiom the footprint model gets wrong (issue 34, item 2): the pointer is
# moved to the program's row first (`x_ptr += row * stride`) and the load adds
# a whole row (`N_COLS + cols`), so it reads row + 1 while insert-signals
# waits for `row` only. verify-sync accepts the placement; verify-addresses
# finds that `N_COLS + cols` is bounded by no mask below N_COLS, so its proof
# holds only for launches whose rows are longer than `N_COLS + BLOCK`: it
# records that (chunk.assume, in_row) and the runtime refuses a launch whose
# row stride is N_COLS (runtime/assumptions.py, test_launch_assumptions.py).
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=0 world=2 stride=stride}' -p 'chunk-dependency-analysis,insert-signals,verify-sync,verify-addresses' | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=0 world=2 stride=stride}' -p 'chunk-dependency-analysis,insert-signals,verify-sync,verify-addresses{strict=true}' 2>&1 | filecheck %s --check-prefix=STRICT
import triton
import triton.language as tl


@triton.jit
def next_row(x_ptr, y_ptr, stride, N_COLS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + N_COLS + cols, mask=cols < N_COLS)
    tl.store(y_ptr + row * stride + cols, x, mask=cols < N_COLS)

# CHECK:      chunk.wait_span %{{.*}} plan @ag tensor "x_ptr"
# CHECK:      tile.load

# STRICT: chunk.assume = [{where = "next-row.py:{{[0-9]+}}: 'tile.load'", guards = [], least = {N_COLS = 0 : i64}, in_row = {param = "x_ptr", dim = 0 : i64, stride = "stride", groups = {{.}}[1 : i64, "N_COLS", "Min(2*N_COLS - 1, BLOCK + N_COLS - 1)", false]
