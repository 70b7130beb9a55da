# RUN: overlap-opt %S/inputs/helperpkg/rows_by_axis.py | filecheck %s
# RUN: overlap-opt %S/inputs/helperpkg/rows_by_axis.py -t triton | filecheck %s --check-prefix=EMIT
# RUN: overlap-opt %s | filecheck %s --check-prefix=LOCAL
# A jit helper that reads `tl.program_id(axis)` / `tl.num_programs(axis)`
# with `axis` a constexpr parameter (FlagGems' `tle.program_id(0)`) is
# inlined where a kernel calls it with a literal axis (or a constexpr
# global), positionally or by keyword, also through a helper that passes
# the axis on: the kernel holds `tile.program_id N` itself. The helpers are
# still imported and emitted as written.

# CHECK-LABEL: tile.func @scale_rows
# CHECK-NEXT:  %pid_m = tile.program_id 0 : i32
# CHECK-NEXT:  %pid_n = tile.program_id 1 : i32
# CHECK-NEXT:  %grid_m = tile.num_programs 0 : i32
# CHECK-NOT:   tile.call_jit
# CHECK-LABEL: tile.func @swapped_grid
# CHECK-NEXT:  %col_pid = tile.program_id 1 : i32
# CHECK-NEXT:  %row_pid = tile.program_id 0 : i32
# CHECK-NOT:   tile.call_jit
# CHECK-LABEL: tile.func @program_id(%axis: !tile.constexpr) -> i32
# CHECK-NEXT:  %0 = tile.call "tl.program_id"(%axis) : (!tile.constexpr) -> i32
# CHECK-LABEL: tile.func @num_programs(%axis: !tile.constexpr) -> i32
# CHECK-NEXT:  tile.call "tl.num_programs"(%axis)
# CHECK-LABEL: tile.func @grid_coords(%ROW_AXIS: !tile.constexpr, %COL_AXIS: !tile.constexpr)
# CHECK-NEXT:  tile.call_jit @program_id(%ROW_AXIS)
# CHECK-NEXT:  tile.call_jit @program_id(%COL_AXIS)

# EMIT:      def scale_rows(
# EMIT-NEXT:     pid_m = tl.program_id(axis=0)
# EMIT-NEXT:     pid_n = tl.program_id(axis=1)
# EMIT-NEXT:     grid_m = tl.num_programs(axis=0)
# EMIT:      def program_id(axis: tl.constexpr):
# EMIT-NEXT:     return tl.program_id(axis)
# EMIT:      def grid_coords(ROW_AXIS: tl.constexpr, COL_AXIS: tl.constexpr):
# EMIT-NEXT:     tmp = program_id(ROW_AXIS)

import triton
import triton.language as tl


@triton.jit
def pid_of(axis: tl.constexpr):
    """Edge: the helper computes with the program id before it returns it."""
    pid = tl.program_id(axis)
    return pid.to(tl.int64)


@triton.jit
def edge(x_ptr, BLOCK: tl.constexpr):
    row = pid_of(2)
    offs = row * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)

# LOCAL-LABEL: tile.func @edge
# LOCAL-NEXT:  %pid = tile.program_id 2 : i32
# LOCAL-NEXT:  %row = tile.cast %pid
# LOCAL-NOT:   tile.call_jit
