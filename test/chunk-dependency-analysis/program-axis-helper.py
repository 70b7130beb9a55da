# RUN: overlap-opt %S/../frontend/inputs/helperpkg/rows_by_axis.py --kernel scale_rows --plan 'all-gather{tensor=x_ptr dim=0 size=M world=2}' -p chunk-dependency-analysis | filecheck %s
# Program ids read through a helper whose axis is a constexpr parameter
# (`pid_m = tle.program_id(ROW_AXIS)`, FlagGems' style) are the kernel's own
# program ids once the helper is inlined, so the rows are bounded as for
# `tl.program_id(0)` written in the kernel.

# CHECK-LABEL: tile.func @scale_rows
# CHECK:       tile.load {{.*}} {chunk.access = {plan = @ag, tensor = "x_ptr", dim = 0 : i64, role = "read", lo = "(pid0 * BLOCK_M)", extent = "BLOCK_M"
