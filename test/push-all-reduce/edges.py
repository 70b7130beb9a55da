# Edge cases. A decode kernel (one row, M = 1) whose store has no mask: the
# push takes no mask and the lowered helper gets `True`; the kernel's tiles
# are named by their program ids (order=none: no tile order table).
# A module whose only plan is an all-gather is refused (nothing to push).
# RUN: overlap-opt %s --plan 'all-reduce{tensor=c_ptr dim=0 world=2 size=N}' -p 'chunk-dependency-analysis,insert-signals,push-all-reduce' | filecheck %s
# RUN: overlap-opt %s --plan 'all-reduce{tensor=c_ptr dim=0 world=2 size=N}' -p 'overlap{reduce=push order=none}' -t triton | filecheck %s --check-prefix=LOWERED
# RUN: not overlap-opt %s --plan 'all-gather{tensor=x_ptr dim=0 world=2 size=N}' -p 'chunk-dependency-analysis,push-all-reduce' 2>&1 | filecheck %s --check-prefix=AG
import triton
import triton.language as tl


@triton.jit
def row(x_ptr, w_ptr, c_ptr, K, N: tl.constexpr, BLOCK_K: tl.constexpr):
    cols = tl.arange(0, N)
    acc = tl.zeros((N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + ks)
        w = tl.load(w_ptr + ks[:, None] * N + cols[None, :])
        acc += tl.sum(x[:, None] * w, axis=0)
    tl.store(c_ptr + cols, acc)

# CHECK:      %[[P:.*]] = chunk.push_reduce %acc_1 at %[[PTRS:[0-9]+]] plan @ar tensor "c_ptr"
# CHECK-NEXT: tile.store %[[P]], %[[PTRS]] {
# LOWERED: def row(x_ptr, w_ptr, c_ptr, K, N: tl.constexpr, BLOCK_K: tl.constexpr, syn_flags, syn_epoch, syn_spin_limit, syn_report, syn_push_ar_c_ptr_tab, syn_push_ar_c_ptr_n):
# LOWERED:      [[V:tmp[_0-9]*]] = syn_push_reduce(acc, [[PTRS:tmp[_0-9]*]], True, syn_push_ar_c_ptr_tab, syn_push_ar_c_ptr_n, syn_flags, syn_flags, False, syn_epoch, syn_spin_limit, syn_report)
# LOWERED-NEXT: tl.store([[PTRS]], [[V]])
# LOWERED-NOT:  syn_signal_span(
# LOWERED:      def syn_push_reduce(
# AG: push-all-reduce: @row has no all-reduce plan (plans: @ag all-gather)
