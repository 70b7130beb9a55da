// chunk.wait_span_loop becomes a call of syn_wait_span_loop with the range,
// the loop's first lo and its step (the helper skips the chunks the previous
// iteration already waited for); syn_first_chunk comes along with it.
// RUN: overlap-opt %s -p lower-chunk-to-tile | filecheck %s
// RUN: overlap-opt %s -p lower-chunk-to-tile -t triton | filecheck %s --check-prefix=PY

builtin.module {
  tile.func @walk(%x_ptr: !tile.ptr, %K: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "K", "BLOCK"], decorators = ["triton.jit"]} {
    %lb = arith.constant 0 : i32
    %ub = tile.retype %K : !tile.scalar -> i32
    %step = tile.retype %BLOCK : !tile.constexpr -> i32
    scf.for %k0 = %lb to %ub step %step : i32 {
      chunk.wait_span_loop %k0, %BLOCK first %lb step %step plan @ag tensor "x" : i32, !tile.constexpr, i32, i32
      %v = tile.load %x_ptr : !tile.ptr -> !tile.any
      scf.yield
    }
    tile.return
  }
  chunk.plan @ag kind "all-gather" world 2 {
    chunk.tensor "x" -> "x_ptr" shape ["D0", "K"] strides ["stride_x_0", 1]
    chunk.chunk id 0 "x" dim 1 offset 0 size "K/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "x" dim 1 offset "K/2" size "K - K/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "x" dim 1 offset 0 size "K/2" src 0 dst 1 step 0 backend unset
    chunk.chunk id 3 "x" dim 1 offset "K/2" size "K - K/2" src 1 dst 0 step 0 backend unset
  }
}

// CHECK:       scf.for %k0 = %lb to %ub step %step
// CHECK-NEXT:    %[[HI:.*]] = tile.add %k0, %BLOCK {tile.origin = "lower-chunk-to-tile"}
// CHECK-NEXT:    tile.call_jit @syn_wait_span_loop(%syn_flags, %syn_wait_ag_x_tab, %syn_wait_ag_x_n, %k0, %[[HI]], %lb, %step, %syn_epoch, %syn_spin_limit, %syn_report)
// CHECK-NOT:   chunk.wait_span_loop
// CHECK-DAG:   tile.func @syn_wait_span_loop(
// CHECK-DAG:   tile.func @syn_first_chunk(

// PY:          for k0 in range(0, K, BLOCK):
// PY-NEXT:         # inserted by lower-chunk-to-tile
// PY-NEXT:         syn_wait_span_loop(syn_flags, syn_wait_ag_x_tab, syn_wait_ag_x_n, k0, k0 + BLOCK, 0, BLOCK, syn_epoch, syn_spin_limit, syn_report)
// PY-LABEL:    def syn_wait_span_loop(flags, table, n, lo, hi, first, step, epoch_ptr, spin_limit, report):
// PY:              seen_hi = hi - step
// PY-NEXT:         check_all = (lo == first) | (step <= 0)
