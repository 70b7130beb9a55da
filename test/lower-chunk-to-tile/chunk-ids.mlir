// chunk.wait / chunk.signal on a chunk id: the flag index is the id plus the
// plan's flag base (plans in module order: @ag 0..3, @rs from 4); no tables.
// RUN: overlap-opt %s -p lower-chunk-to-tile | filecheck %s
// RUN: overlap-opt %s -p lower-chunk-to-tile -t triton | filecheck %s --check-prefix=PY

builtin.module {
  chunk.plan @ag kind "all-gather" world 2 {
    chunk.tensor "x" -> "x_ptr" shape [8, 4] strides [4, 1]
    chunk.chunk id 0 "x" dim 0 offset 0 size 4 src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "x" dim 0 offset 4 size 4 src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "x" dim 0 offset 0 size 4 src 0 dst 1 step 0 backend ce
    chunk.chunk id 3 "x" dim 0 offset 4 size 4 src 1 dst 0 step 0 backend ce
  }
  chunk.plan @rs kind "reduce-scatter" world 2 {
    chunk.tensor "c" -> "c_ptr" shape [8, 4] strides [4, 1]
    chunk.chunk id 0 "c" dim 0 offset 0 size 4 src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "c" dim 0 offset 4 size 4 src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "c" dim 0 offset 4 size 4 src 0 dst 1 step 0 backend unset
    chunk.chunk id 3 "c" dim 0 offset 0 size 4 src 1 dst 0 step 0 backend unset
  }
  tile.func @k(%x_ptr: !tile.ptr, %c_ptr: !tile.ptr) attributes {param_names = ["x_ptr", "c_ptr"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    chunk.wait %pid plan @ag
    %v = tile.load %x_ptr : !tile.ptr -> !tile.any
    tile.store %v, %c_ptr : !tile.any, !tile.ptr
    chunk.signal %pid plan @rs count 4
    tile.return
  }
}

// CHECK-LABEL: tile.func @k(%x_ptr: !tile.ptr, %c_ptr: !tile.ptr, %syn_flags: !tile.ptr, %syn_epoch: !tile.ptr, %syn_spin_limit: !tile.scalar, %syn_report: !tile.ptr)
// CHECK-NEXT:    %pid = tile.program_id 0 : i32
// CHECK-NEXT:    %[[B0:.*]] = arith.constant {tile.origin = "lower-chunk-to-tile"} 0 : i32
// CHECK-NEXT:    %[[I0:.*]] = tile.add %pid, %[[B0]]
// CHECK-NEXT:    tile.call_jit @syn_wait_chunk(%syn_flags, %[[I0]], %syn_epoch, %syn_spin_limit, %syn_report)
// CHECK-NEXT:    tile.load
// CHECK-NEXT:    tile.store
// CHECK-NEXT:    %[[B4:.*]] = arith.constant {tile.origin = "lower-chunk-to-tile"} 4 : i32
// CHECK-NEXT:    %[[I4:.*]] = tile.add %pid, %[[B4]]
// CHECK-NEXT:    %[[BULK:.*]] = arith.constant {tile.origin = "lower-chunk-to-tile"} false
// CHECK-NEXT:    tile.call_jit @syn_signal_chunk(%syn_flags, %[[I4]], %[[BULK]])
// CHECK-NEXT:    tile.return
// CHECK-NOT:   chunk.wait
// CHECK-NOT:   chunk.signal
// CHECK-NOT:   syn_wait_span

// PY-LABEL: def k(x_ptr, c_ptr, syn_flags, syn_epoch, syn_spin_limit, syn_report):
// PY:           syn_wait_chunk(syn_flags, pid + 0, syn_epoch, syn_spin_limit, syn_report)
// PY:           syn_signal_chunk(syn_flags, pid + 4, False)
// The report words: the first (code, tile, a, b) of a launch wins.
// PY-LABEL: def syn_record(report, code, a, b):
// PY:           tmp = tl.atomic_cas(report, 0, code)
// PY-NEXT:      if tmp == 0:
// PY-NEXT:          tl.store(report + 1, tile)
// PY-NEXT:          tl.store(report + 2, a)
// PY-NEXT:          tl.store(report + 3, b)
// PY-LABEL: def syn_signal_chunk(flags, index, BULK_STORES: tl.constexpr):
// PY-NEXT:      if BULK_STORES:
// PY-NEXT:          syn_bulk_store_wait()
// PY-NEXT:      tl.debug_barrier()
// PY-NEXT:      tl.atomic_add(flags + index, 1, sem='release', scope='sys')

// The spin reads the epoch from memory (CUDA-graph replays see their own)
// and is bounded by spin_limit (0: unbounded); a spin that runs out records
// (1, tile, flag, value seen) in the report words through syn_record.
// PY-LABEL: def syn_spin(flags, index, target, spin_limit, report):
// PY:           seen = tl.atomic_add(flag, 0, sem='acquire', scope='sys')
// PY:           while (seen < target) & ((spin_limit == 0) | (spins < spin_limit)):
// PY:           if seen < target:
// PY-NEXT:          syn_record(report, 1, index, seen)
// PY-LABEL: def syn_wait_chunk(flags, index, epoch_ptr, spin_limit, report):
// PY-NEXT:      tmp = tl.load(epoch_ptr)
// PY-NEXT:      syn_spin(flags, index, tmp, spin_limit, report)
