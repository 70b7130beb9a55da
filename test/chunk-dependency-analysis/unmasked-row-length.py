# A scalar row's address plus a lone length (`X += row * stride; X + N_COLS + cols`) stays in the row only
# if the columns it reaches are below the row stride. With a column mask the launch checks that (next-row.py);
# without one nothing bounds the columns, so the access is refused at its line, with the rewrite.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=X world=2 size=n_rows stride=stride}' -p chunk-dependency-analysis 2>&1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def second_half(X, Y, stride, N_COLS, n_rows, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    X += row * stride
    x = tl.load(X + N_COLS + cols)
    tl.store(Y + row * stride + cols, x)

# CHECK: overlap-opt: error: chunk-dependency-analysis: unmasked-row-length.py:14: 'tile.load': the access of 'X' adds N_COLS to a row's address, which stays in the row only if the columns it reaches are below the row stride; its columns have no mask bound
