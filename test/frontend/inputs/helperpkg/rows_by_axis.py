"""A FlagGems-style kernel that reads its program ids through `tle`."""

import triton
import triton.language as tl

from . import tle

ROW_AXIS: tl.constexpr = 0


@triton.jit
def scale_rows(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tle.program_id(ROW_AXIS)
    pid_n = tle.program_id(axis=1)
    grid_m = tle.num_programs(0)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], x * grid_m, mask=mask)


@triton.jit
def swapped_grid(x_ptr, N, BLOCK: tl.constexpr):
    col_pid, row_pid = tle.grid_coords(1, 0)
    offs = row_pid * N + col_pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)
