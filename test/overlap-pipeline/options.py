# The pipeline's options go to the stages of the same name.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'overlap{order=rotate sizes="M=64,D1=64"}' | filecheck %s --check-prefix=ROTATE
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'overlap{order=rotate sizes="M=64,D1=64"}' --print-op-generic | filecheck %s --check-prefix=ROTATE-ABI
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'overlap{backend=nccl}' | filecheck %s --check-prefix=NCCL
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'overlap{group=4}' --print-op-generic | filecheck %s --check-prefix=GROUP
# hoist_loops goes to insert-signals: the K/V waits of a loop over the gathered dim move above the loops.
# RUN: overlap-opt %S/../insert-signals/hoist-loops.py --plan 'all-gather{tensor=k_ptr world=2 size=N name=agk}' --plan 'all-gather{tensor=v_ptr world=2 size=N name=agv}' -p 'overlap{hoist_loops=true}' -t triton | filecheck %s --check-prefix=HOIST
# waits=false: nothing to lower, so no sync parameters (the negative control).
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p 'overlap{waits=false order=none}' -t triton | filecheck %s --check-prefix=NOWAIT
import triton
import triton.language as tl


@triton.jit
def tile_copy(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask)
    tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], x, mask=mask)

# ROTATE-LABEL: tile.func @tile_copy(
# ROTATE-SAME:    %syn_rotate: !tile.scalar, %syn_flags: !tile.ptr, %syn_epoch: !tile.ptr, %syn_spin_limit: !tile.scalar, %syn_report: !tile.ptr, %syn_wait_ag_x_ptr_tab: !tile.ptr, %syn_wait_ag_x_ptr_n: !tile.scalar, %syn_comm_programs: !tile.scalar, %syn_sm_ag_x_ptr_tab: !tile.ptr, %syn_sm_ag_x_ptr_n: !tile.scalar)
# The cost model picks the SM backend for these small chunks, so the kernel
# gets communication programs in front of axis 0 (see sm-backend.py).
# ROTATE:         scf.if
# ROTATE:         tile.call_jit @syn_sm_pull(%x_ptr,
# ROTATE:         tile.mod {{.*}} {tile.origin = "tile-reorder"}
# ROTATE:         tile.call_jit @syn_wait_span(
# ROTATE-NEXT:    %x = tile.load
# ROTATE:       chunk.chunk id 2 {{.*}} backend sm attributes {chunk.cost = {bytes = 4096 : i64,
# ROTATE-NOT:   tile.func @syn_tile_
# ROTATE:       tile.func @syn_wait_span(
# ROTATE-ABI:   chunk.abi = {order = "rotate", group = 8 : i64, axis = 0 : i64, rotate = "syn_rotate", comm_programs = "syn_comm_programs", flags = "syn_flags", epoch = "syn_epoch", spin_limit = "syn_spin_limit", report = "syn_report", flag_bases = {ag = 0 : i64}, tables = [{param = "syn_wait_ag_x_ptr_tab", count = "syn_wait_ag_x_ptr_n", plan = "ag", tensor = "x_ptr", role = "wait"}, {param = "syn_sm_ag_x_ptr_tab", count = "syn_sm_ag_x_ptr_n", plan = "ag", tensor = "x_ptr", role = "sm"}]}

# NCCL:     chunk.chunk id 1 {{.*}} backend unset{{$}}
# NCCL-NEXT: chunk.chunk id 2 {{.*}} backend nccl attributes {chunk.cost = {reason = "sizes unknown"}}
# NCCL-NEXT: chunk.chunk id 3 {{.*}} backend nccl attributes {chunk.cost = {reason = "sizes unknown"}}

# GROUP: chunk.abi = {order = "arrival", group = 4 : i64, axis = 0 : i64, tile_order = "syn_tile_order", flags = "syn_flags"

# NOWAIT:      def tile_copy(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
# NOWAIT-NEXT:     pid_m = tl.program_id(axis=0)
# NOWAIT-NOT:  syn_

# HOIST:      syn_wait_span(syn_flags, syn_wait_agk_k_ptr_tab, syn_wait_agk_k_ptr_n, 0, 0 + 2147483647,
# HOIST:      syn_wait_span(syn_flags, syn_wait_agv_v_ptr_tab, syn_wait_agv_v_ptr_n, 0, 0 + 2147483647,
# HOIST-NEXT: for outer in range(2):
# HOIST-NOT:  syn_wait_span(syn_flags
# HOIST:      def syn_wait_span(
