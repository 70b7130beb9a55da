# The whole pipeline on an all-gather + GEMM kernel, down to Triton: tiles in
# arrival order, one wait per tile hoisted above the K loop, lowered to the
# syn_wait_span helper; the added parameters come last in the signature.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2}' -p overlap -t triton | filecheck %s
# `overlap` alone is the stages in order (verify-addresses records what its
# proof assumes of a launch on the kernel: chunk.assume).
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2}' -p overlap > %t.pipeline.mlir
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival group=8},insert-signals,select-backend,verify-sync,verify-addresses,lower-chunk-to-tile' > %t.stages.mlir
# RUN: diff %t.pipeline.mlir %t.stages.mlir
# RUN: filecheck %s --check-prefix=IR < %t.pipeline.mlir
# The emitted module is plain tile IR again: it re-imports and emits the same Triton.
# RUN: overlap-opt %t.pipeline.mlir -t triton > %t.again.py
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2}' -p overlap -t triton | diff - %t.again.py
import triton
import triton.language as tl


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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

# CHECK-LABEL: def gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, syn_tile_order, syn_flags, syn_epoch, syn_spin_limit, syn_report, syn_wait_ag_a_ptr_tab, syn_wait_ag_a_ptr_n):
# CHECK:           pid_m = syn_tile_pid0(syn_tile_order, tmp, tmp_1, tmp_2, tmp_3, tmp_4)
# CHECK-NEXT:      # inserted by tile-reorder
# CHECK-NEXT:      pid_n = syn_tile_pid1(syn_tile_order, tmp, tmp_1, tmp_2, tmp_3, tmp_4)
# CHECK-NEXT: tmp_5 = pid_m * BLOCK_M
# CHECK-NEXT: rows = tmp_5 + tl.arange(0, BLOCK_M)
# CHECK:           # inserted by lower-chunk-to-tile
# The mask `rows < M` cuts the wait at M: the grid's last tile waits only for rows it reads.
# CHECK-NEXT: syn_wait_span(syn_flags, syn_wait_ag_a_ptr_tab, syn_wait_ag_a_ptr_n, tmp_5, tl.minimum(tmp_5 + BLOCK_M, M), syn_epoch, syn_spin_limit, syn_report)
# CHECK-NEXT:      for k0 in range(0, K, BLOCK_K):
# CHECK-NOT:       syn_wait_span(
# CHECK:           tl.store(c_ptr
# CHECK-NOT:       syn_signal_span
# CHECK-LABEL: def syn_tile_linear(order, p0, p1, p2, n0, n1):
# CHECK-LABEL: def syn_tile_pid0(order, p0, p1, p2, n0, n1):
# CHECK-LABEL: def syn_tile_pid1(order, p0, p1, p2, n0, n1):
# CHECK-LABEL: def syn_wait_span(flags, table, n, lo, hi, epoch_ptr, spin_limit, report):
# CHECK-NOT:   def syn_signal_span

# The plan stays (the runtime reads it), with the kernel's binding and a backend
# per non-local chunk; no chunk sync op is left.
# IR-NOT:      chunk.wait
# IR:          chunk.plan @ag kind "all-gather" world 2 {
# IR-NEXT:       chunk.tensor "a_ptr" -> "a_ptr" shape ["M", "D1"] strides ["stride_am", "stride_a_ptr_1"]
# IR-NEXT:       chunk.chunk id 0 {{.*}} backend unset{{$}}
# IR-NEXT:       chunk.chunk id 1 {{.*}} backend unset{{$}}
# IR-NEXT:       chunk.chunk id 2 {{.*}} backend ce attributes {chunk.cost = {reason = "sizes unknown"}}
# IR-NEXT:       chunk.chunk id 3 {{.*}} backend ce attributes {chunk.cost = {reason = "sizes unknown"}}
