# SM backend: chunks with backend sm are pulled by communication programs
# inside the fused kernel. They sit in front of grid axis 0 (the runtime
# launches grid0 + syn_comm_programs), so every tl.program_id(0) and
# tl.num_programs(0) of the tile body is shifted and the body itself is
# unchanged; programs (p, 0, 0) with p < syn_comm_programs run syn_sm_pull.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'overlap{backend=sm order=none}' -t triton | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'overlap{backend=sm order=arrival}' -t triton | filecheck %s --check-prefix=ARRIVAL
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'overlap{backend=sm}' --print-op-generic | filecheck %s --check-prefix=ABI
# Edge: with the copy engine there are no communication programs.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'overlap{backend=ce}' -t triton | filecheck %s --check-prefix=CE
# Edge: the emitted file is still valid Python that the frontend re-imports.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=0 world=2}' -p 'overlap{backend=sm}' -t triton -o %t.py
# RUN: overlap-opt %t.py | filecheck %s --check-prefix=REIMPORT
import triton
import triton.language as tl


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
         BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :], mask=rows[:, None] < M, other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :], mask=cols[None, :] < N, other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))

# CHECK-LABEL: def gemm(
# CHECK-SAME:      syn_comm_programs, syn_sm_ag_a_ptr_tab, syn_sm_ag_a_ptr_n):
# CHECK-NEXT:      # inserted by lower-chunk-to-tile
# CHECK-NEXT:      if tl.program_id(axis=0) < syn_comm_programs:
# CHECK-NEXT:          # inserted by lower-chunk-to-tile
# CHECK-NEXT:          if tl.program_id(axis=1) + tl.program_id(axis=2) == 0:
# CHECK-NEXT:              # inserted by lower-chunk-to-tile
# CHECK-NEXT:              syn_sm_pull(a_ptr, syn_flags, syn_sm_ag_a_ptr_tab, syn_sm_ag_a_ptr_n, syn_epoch, tl.program_id(axis=0), syn_comm_programs, 8192)
# CHECK-NEXT:      else:
# CHECK-NEXT:          pid_m = tl.program_id(axis=0)
# CHECK-NEXT:          # inserted by lower-chunk-to-tile
# CHECK-NEXT:          pid_m = pid_m - syn_comm_programs
# CHECK-NEXT:          pid_n = tl.program_id(axis=1)
# CHECK:               syn_wait_span(syn_flags, syn_wait_ag_a_ptr_tab,
# CHECK:               tl.store(c_ptr
# CHECK-LABEL: def syn_sm_pull(base, flags, table, n, epoch_ptr, program, programs, BLOCK: tl.constexpr):
# CHECK:           for i in range(program, n, programs):
# CHECK:               peer = tl.load(table + 6 * i + 3)
# CHECK:               if aligned:
# CHECK:                   tmp = tl.load(base + src)
# CHECK-NEXT:              tl.store(base + dst, tmp)
# CHECK:               tl.debug_barrier()
# CHECK:               tl.atomic_max(flags + {{.*}}.to(tl.int32), target, sem='release', scope='sys')

# With the arrival order, the tile helpers get the shifted program ids.
# ARRIVAL:         tmp = tl.program_id(axis=0) - syn_comm_programs
# ARRIVAL:         tmp_3 = tl.num_programs(axis=0) - syn_comm_programs
# ARRIVAL:         pid_m = syn_tile_pid0(syn_tile_order, tmp, tmp_1, tmp_2, tmp_3, tmp_4)

# ABI: comm_programs = "syn_comm_programs"
# ABI-SAME: {param = "syn_sm_ag_a_ptr_tab", count = "syn_sm_ag_a_ptr_n", plan = "ag", tensor = "a_ptr", role = "sm"}

# CE-NOT: syn_comm_programs
# CE-NOT: syn_sm_pull

# REIMPORT: tile.func @gemm(
# REIMPORT: scf.if
# REIMPORT: tile.call_jit @syn_sm_pull(
