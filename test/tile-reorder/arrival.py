# order=arrival: every tl.program_id(a) becomes coordinate a of the runtime's
# tile-order table; the helpers are appended, so the emitted file is self-contained.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'tile-reorder{order=arrival}' | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'tile-reorder{order=arrival}' -t triton | filecheck %s --check-prefix=PY
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'tile-reorder{order=arrival group=4}' --print-op-generic | filecheck %s --check-prefix=ABI
import triton
import triton.language as tl


@triton.jit
def tile_copy(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(axis=1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask)
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x, mask=mask)

# CHECK-LABEL: tile.func @tile_copy(
# CHECK-SAME:    %BLOCK_N: !tile.constexpr, %syn_tile_order: !tile.ptr)
# CHECK-NEXT:    %[[P0:.*]] = tile.program_id 0 {tile.origin = "tile-reorder"} : i32
# CHECK-NEXT:    %[[P1:.*]] = tile.program_id 1 {tile.origin = "tile-reorder"} : i32
# CHECK-NEXT:    %[[P2:.*]] = tile.program_id 2 {tile.origin = "tile-reorder"} : i32
# CHECK-NEXT:    %[[N0:.*]] = tile.num_programs 0 {tile.origin = "tile-reorder"} : i32
# CHECK-NEXT:    %[[N1:.*]] = tile.num_programs 1 {tile.origin = "tile-reorder"} : i32
# CHECK-NEXT:    %pid_m = tile.call_jit @syn_tile_pid0(%syn_tile_order, %[[P0]], %[[P1]], %[[P2]], %[[N0]], %[[N1]]) {tile.origin = "tile-reorder"} : (!tile.ptr, i32, i32, i32, i32, i32) -> i32
# CHECK-NEXT:    %pid_n = tile.call_jit @syn_tile_pid1(%syn_tile_order, %[[P0]], %[[P1]], %[[P2]], %[[N0]], %[[N1]]) {tile.origin = "tile-reorder"} : (!tile.ptr, i32, i32, i32, i32, i32) -> i32
# CHECK-NOT:     tile.program_id
# CHECK:         tile.return
# CHECK:       chunk.plan @ag
# CHECK:       tile.func @syn_tile_linear(%order: !tile.ptr, %p0: !tile.any, %p1: !tile.any, %p2: !tile.any, %n0: !tile.any, %n1: !tile.any)
# CHECK:       tile.func @syn_tile_pid0(
# CHECK:       tile.func @syn_tile_pid1(
# CHECK-NOT:   tile.func @syn_tile_pid2(

# PY-LABEL: def tile_copy(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, syn_tile_order):
# PY:           tmp = tl.program_id(axis=0)
# PY:           tmp_3 = tl.num_programs(axis=0)
# PY:           pid_m = syn_tile_pid0(syn_tile_order, tmp, tmp_1, tmp_2, tmp_3, tmp_4)
# PY-NEXT:      # inserted by tile-reorder
# PY-NEXT:      pid_n = syn_tile_pid1(syn_tile_order, tmp, tmp_1, tmp_2, tmp_3, tmp_4)
# PY-NOT:       tl.program_id
# PY-LABEL: def syn_tile_linear(order, p0, p1, p2, n0, n1):
# PY-NEXT:      tmp = tl.load(order + p0 + p1 * n0 + p2 * n0 * n1)
# PY-LABEL: def syn_tile_pid0(order, p0, p1, p2, n0, n1):
# PY-LABEL: def syn_tile_pid1(order, p0, p1, p2, n0, n1):

# The kernel's ABI records the order and the table parameter for the runtime.
# ABI: "tile.func"() <{sym_name = "tile_copy"
# ABI: }) {chunk.abi = {order = "arrival", group = 4 : i64, axis = 0 : i64, tile_order = "syn_tile_order"}
