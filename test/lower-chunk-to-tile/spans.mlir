// chunk.wait_span / chunk.signal_span become calls of the appended helpers;
// the kernel gets the signal pad, the epoch and one chunk table per plan
// tensor and role; the ABI lists them. The plans stay, no chunk sync op does.
// RUN: overlap-opt %s -p lower-chunk-to-tile | filecheck %s
// RUN: overlap-opt %s -p lower-chunk-to-tile -t triton | filecheck %s --check-prefix=PY
// RUN: overlap-opt %s -p lower-chunk-to-tile --print-op-generic | filecheck %s --check-prefix=ABI

builtin.module {
  tile.func @k(%x_ptr: !tile.ptr, %c_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "c_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    chunk.wait_span %lo, %BLOCK plan @ag tensor "x" : i32, !tile.constexpr
    %v = tile.load %x_ptr : !tile.ptr -> !tile.any
    tile.store %v, %c_ptr : !tile.any, !tile.ptr
    chunk.signal_span %lo, %BLOCK plan @rs tensor "c" : i32, !tile.constexpr
    tile.return
  }
  chunk.plan @ag kind "all-gather" world 2 {
    chunk.tensor "x" -> "x_ptr" shape ["M", "K"] strides ["stride_xm", 1]
    chunk.chunk id 0 "x" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "x" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "x" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend unset
    chunk.chunk id 3 "x" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0 backend unset
  }
  chunk.plan @rs kind "reduce-scatter" world 2 {
    chunk.tensor "c" -> "c_ptr" shape ["M", "K"] strides ["stride_cm", 1]
    chunk.chunk id 0 "c" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "c" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "c" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend unset
    chunk.chunk id 3 "c" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend unset
  }
}

// CHECK-LABEL: tile.func @k(%x_ptr: !tile.ptr, %c_ptr: !tile.ptr, %BLOCK: !tile.constexpr, %syn_flags: !tile.ptr, %syn_epoch: !tile.ptr, %syn_spin_limit: !tile.scalar, %syn_report: !tile.ptr, %syn_wait_ag_x_tab: !tile.ptr, %syn_wait_ag_x_n: !tile.scalar, %syn_signal_rs_c_tab: !tile.ptr, %syn_signal_rs_c_n: !tile.scalar)
// CHECK-SAME:    param_names = ["x_ptr", "c_ptr", "BLOCK", "syn_flags", "syn_epoch", "syn_spin_limit", "syn_report", "syn_wait_ag_x_tab", "syn_wait_ag_x_n", "syn_signal_rs_c_tab", "syn_signal_rs_c_n"]
// CHECK:         %lo = tile.mul
// CHECK-NEXT:    %[[HI:.*]] = tile.add %lo, %BLOCK {tile.origin = "lower-chunk-to-tile"}
// CHECK-NEXT:    tile.call_jit @syn_wait_span(%syn_flags, %syn_wait_ag_x_tab, %syn_wait_ag_x_n, %lo, %[[HI]], %syn_epoch, %syn_spin_limit, %syn_report) {tile.origin = "lower-chunk-to-tile"}
// CHECK-NEXT:    %v = tile.load
// CHECK-NEXT:    tile.store
// CHECK-NEXT:    %[[HI2:.*]] = tile.add %lo, %BLOCK
// A kernel without tensor-descriptor stores signals without the bulk-store wait (BULK_STORES false).
// CHECK-NEXT:    %[[BULK:.*]] = arith.constant {tile.origin = "lower-chunk-to-tile"} false
// CHECK-NEXT:    tile.call_jit @syn_signal_span(%syn_flags, %syn_signal_rs_c_tab, %syn_signal_rs_c_n, %lo, %[[HI2]], %[[BULK]]) {tile.origin = "lower-chunk-to-tile"}
// CHECK-NEXT:    tile.return
// CHECK-NOT:   chunk.wait_span
// CHECK-NOT:   chunk.signal_span
// CHECK:       chunk.plan @ag
// CHECK:       chunk.plan @rs
// CHECK-DAG:   tile.func @syn_wait_span(%flags: {{.*}}, %table: {{.*}}, %n: {{.*}}, %lo: {{.*}}, %hi: {{.*}}, %epoch_ptr: {{.*}}, %spin_limit: {{.*}}, %report: {{.*}})
// CHECK-DAG:   tile.func @syn_signal_span(%flags: {{.*}}, %table: {{.*}}, %n: {{.*}}, %lo: {{.*}}, %hi: {{.*}}, %BULK_STORES: !tile.constexpr)
// CHECK-NOT:   tile.func @syn_wait_chunk

// PY-LABEL: def k(x_ptr, c_ptr, BLOCK: tl.constexpr, syn_flags, syn_epoch, syn_spin_limit, syn_report, syn_wait_ag_x_tab, syn_wait_ag_x_n, syn_signal_rs_c_tab, syn_signal_rs_c_n):
// PY:           lo = pid * BLOCK
// PY-NEXT:      # inserted by lower-chunk-to-tile
// PY-NEXT:      syn_wait_span(syn_flags, syn_wait_ag_x_tab, syn_wait_ag_x_n, lo, lo + BLOCK, syn_epoch, syn_spin_limit, syn_report)
// PY-NEXT:      v = tl.load(x_ptr)
// PY-NEXT:      tl.store(c_ptr, v)
// PY-NEXT:      # inserted by lower-chunk-to-tile
// PY-NEXT:      syn_signal_span(syn_flags, syn_signal_rs_c_tab, syn_signal_rs_c_n, lo, lo + BLOCK, False)
// A signal first waits for the thread's tensor-descriptor stores to be written (the TMA store's bulk group).
// PY-LABEL: def syn_bulk_store_wait():
// PY-NEXT:      tl.inline_asm_elementwise('cp.async.bulk.wait_group 0;', '=r', [], dtype=tl.int32, is_pure=False, pack=1)
// PY-LABEL: def syn_first_chunk(table, n, lo):
// PY:           while first < last:
// PY:               tmp = tl.load(table + 3 * mid + 1)
// PY-NEXT:          if tmp <= lo:
// PY-LABEL: def syn_signal_span(flags, table, n, lo, hi, BULK_STORES: tl.constexpr):
// PY-NEXT:      if BULK_STORES:
// PY-NEXT:          syn_bulk_store_wait()
// PY-NEXT:      tl.debug_barrier()
// PY:           tl.atomic_add(flags + tmp, 1, sem='release', scope='sys')
// The wait finds its chunks by binary search over the (sorted, disjoint) table, then walks them up to hi.
// PY-LABEL: def syn_wait_span(flags, table, n, lo, hi, epoch_ptr, spin_limit, report):
// PY-NEXT:      target = tl.load(epoch_ptr)
// PY-NEXT:      i = syn_first_chunk(table, n, lo)
// PY:           while more:
// PY-NEXT:          tmp = tl.load(table + 3 * i)
// PY-NEXT:          more = tmp < hi
// PY:                   syn_spin(flags, tmp_1, target, spin_limit, report)
// PY:           tl.debug_barrier()

// Flag bases: plan @ag has chunks 0..3, so @rs starts at 4.
// ABI: chunk.abi = {flags = "syn_flags", epoch = "syn_epoch", spin_limit = "syn_spin_limit", report = "syn_report", flag_bases = {ag = 0 : i64, rs = 4 : i64}, tables = [{param = "syn_wait_ag_x_tab", count = "syn_wait_ag_x_n", plan = "ag", tensor = "x", role = "wait"}, {param = "syn_signal_rs_c_tab", count = "syn_signal_rs_c_n", plan = "rs", tensor = "c", role = "signal"}]}
