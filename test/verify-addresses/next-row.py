# An idiom the footprint model gets wrong (issue 34, item 2): the pointer is
# moved to the program's row first (`x_ptr += row * stride`) and the load adds
# a whole row (`N_COLS + cols`), so it reads row + 1 while insert-signals
# waits for `row` only. verify-sync accepts the placement; verify-addresses
# cannot attribute `N_COLS + cols` to a row (it is bounded by no mask below
# N_COLS), so it reports the load unbounded, and strict=true refuses it.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=0 world=2 stride=stride}' -p 'chunk-dependency-analysis,insert-signals,verify-sync,verify-addresses' | filecheck %s
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=0 world=2 stride=stride}' -p 'chunk-dependency-analysis,insert-signals,verify-sync,verify-addresses{strict=true}' 2>&1 | filecheck %s --check-prefix=STRICT
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

# STRICT: verify-addresses: next-row.py:18: 'tile.load' is unbounded: the coordinate N_COLS + {{.*}} of the element offset is not provably >= 0, so it may reach another row
