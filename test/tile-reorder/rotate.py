# order=rotate: program_id(axis) -> (program_id(axis) + syn_rotate) % num_programs(axis);
# the other axis and the rest of the kernel are untouched, no helper is added.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'tile-reorder{order=rotate}' | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'tile-reorder{order=rotate}' -t triton | filecheck %s --check-prefix=PY
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'tile-reorder{order=rotate axis=1}' -t triton | filecheck %s --check-prefix=AXIS1
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'tile-reorder{order=rotate}' --print-op-generic | filecheck %s --check-prefix=ABI
import triton
import triton.language as tl


@triton.jit
def tile_copy(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask)
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x, mask=mask)

# CHECK-LABEL: tile.func @tile_copy(
# CHECK-SAME:    %syn_rotate: !tile.scalar)
# CHECK-NEXT:    %pid_m = tile.program_id 0 : i32
# CHECK-NEXT:    %[[N:.*]] = tile.num_programs 0 {tile.origin = "tile-reorder"} : i32
# CHECK-NEXT:    %[[S:.*]] = tile.add %pid_m, %syn_rotate {tile.origin = "tile-reorder"} : i32, !tile.scalar -> i32
# CHECK-NEXT:    %[[R:.*]] = tile.mod %[[S]], %[[N]] {tile.origin = "tile-reorder"} : i32, i32 -> i32
# CHECK-NEXT:    %pid_n = tile.program_id 1 : i32
# CHECK-NEXT:    tile.mul %[[R]], %BLOCK_M
# CHECK-NOT:     tile.func @syn_

# PY-LABEL: def tile_copy(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, syn_rotate):
# PY-NEXT:      pid_m = tl.program_id(axis=0)
# PY-NEXT:      # inserted by tile-reorder
# PY-NEXT:      pid_m = (pid_m + syn_rotate) % tl.num_programs(axis=0)
# PY-NEXT:      pid_n = tl.program_id(axis=1)
# PY-NEXT:      rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
# PY-NOT:       def syn_

# AXIS1:      pid_m = tl.program_id(axis=0)
# AXIS1-NEXT: pid_n = tl.program_id(axis=1)
# AXIS1-NEXT: # inserted by tile-reorder
# AXIS1-NEXT: pid_n = (pid_n + syn_rotate) % tl.num_programs(axis=1)
# AXIS1-NEXT: rows = pid_m * BLOCK_M

# ABI: chunk.abi = {order = "rotate", group = 1 : i64, axis = 0 : i64, rotate = "syn_rotate"}
