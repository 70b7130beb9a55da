# GEMM whose A is gathered along K and whose C is reduce-scattered along M:
# a wait per k-block inside the loop, one signal per tile after the store.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2}' --plan 'reduce-scatter{tensor=c_ptr world=2}' -p 'overlap{order=none}' -t triton | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr dim=1 size=K world=2}' --plan 'reduce-scatter{tensor=c_ptr world=2}' -p 'overlap{order=none}' --print-op-generic | filecheck %s --check-prefix=ABI
import triton
import triton.language as tl


@triton.jit
def gemm_k(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_cm,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc)

# CHECK-LABEL: def gemm_k(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, syn_flags, syn_epoch, syn_spin_limit, syn_report, syn_wait_ag_a_ptr_tab, syn_wait_ag_a_ptr_n, syn_signal_rs_c_ptr_tab, syn_signal_rs_c_ptr_n):
# CHECK-NOT:       syn_tile_order
# CHECK:           tl.program_id(axis=0)
# CHECK:           for k0 in range(0, K, BLOCK_K):
# CHECK-NEXT:          ks = k0 + tl.arange(0, BLOCK_K)
# CHECK-NEXT:          # inserted by lower-chunk-to-tile
# CHECK-NEXT:          syn_wait_span_loop(syn_flags, syn_wait_ag_a_ptr_tab, syn_wait_ag_a_ptr_n, k0, k0 + BLOCK_K, 0, BLOCK_K, syn_epoch, syn_spin_limit, syn_report)
# CHECK-NEXT:          a = tl.load(a_ptr
# CHECK:           tl.store(c_ptr
# CHECK-NEXT:      # inserted by lower-chunk-to-tile
# CHECK-NEXT:      syn_signal_span(syn_flags, syn_signal_rs_c_ptr_tab, syn_signal_rs_c_ptr_n, {{.*}} + BLOCK_M, False)
# CHECK-DAG:   def syn_signal_span(flags, table, n, lo, hi, BULK_STORES: tl.constexpr):
# CHECK-DAG:   def syn_wait_span_loop(flags, table, n, lo, hi, first, step, epoch_ptr, spin_limit, report):

# With order=none the ABI has no tile-order entry.
# ABI: chunk.abi = {flags = "syn_flags", epoch = "syn_epoch", spin_limit = "syn_spin_limit", report = "syn_report", flag_bases = {ag = 0 : i64, rs = 4 : i64}, tables = [{param = "syn_wait_ag_a_ptr_tab", {{.*}}role = "wait"}, {param = "syn_signal_rs_c_ptr_tab", count = "syn_signal_rs_c_ptr_n", plan = "rs", tensor = "c_ptr", role = "signal"}]}
