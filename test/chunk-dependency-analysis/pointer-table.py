# A pointer made from an integer (a grouped GEMM's table of raw addresses) may hold the address of the tensor a
# plan moves; its accesses would have no wait, so the kernel is refused, whatever the spelling of the cast. The
# same kernel without a plan is imported as written.
# RUN: not overlap-opt %s --kernel table_to --plan 'all-gather{tensor=x_ptr world=2 size=n_rows stride=stride}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=TO
# RUN: not overlap-opt %s --kernel table_cast --plan 'all-gather{tensor=x_ptr world=2 size=n_rows stride=stride}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=CAST
# RUN: not overlap-opt %s --kernel table_helper --plan 'all-gather{tensor=x_ptr world=2 size=n_rows stride=stride}' -p chunk-dependency-analysis 2>&1 | filecheck %s --check-prefix=HELPER
# RUN: overlap-opt %s --kernel table_to | filecheck %s --check-prefix=PLAIN
import triton
import triton.language as tl


@triton.jit
def table_to(x_ptr, table_ptr, y_ptr, stride, n_rows, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols)
    base = tl.load(table_ptr).to(tl.pointer_type(tl.float32))
    z = tl.load(base + ((row + 1) % n_rows) * stride + cols)
    tl.store(y_ptr + row * stride + cols, x + z)


@triton.jit
def table_cast(x_ptr, table_ptr, y_ptr, stride, n_rows, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    base = tl.cast(tl.load(table_ptr + 1), tl.core.pointer_type(tl.float32))
    z = tl.load(base + row * stride + cols)
    tl.store(y_ptr + row * stride + cols, tl.load(x_ptr + row * stride + cols) + z)


@triton.jit
def _first_base(table_ptr):
    return tl.load(table_ptr).to(tl.pointer_type(tl.float32))


@triton.jit
def table_helper(x_ptr, table_ptr, y_ptr, stride, n_rows, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    z = tl.load(_first_base(table_ptr) + row * stride + cols)
    tl.store(y_ptr + row * stride + cols, tl.load(x_ptr + row * stride + cols) + z)

# TO: chunk-dependency-analysis: pointer-table.py:17: 'tile.call': @table_to makes a pointer from an integer (`tl.pointer_type`); such a pointer may hold the address of a tensor a plan moves
# HELPER: chunk-dependency-analysis: pointer-table.py:33: 'tile.call': @table_helper makes a pointer from an integer
# CAST: chunk-dependency-analysis: pointer-table.py:26: 'tile.call': @table_cast makes a pointer from an integer
# PLAIN: tile.call "tl.pointer_type"
