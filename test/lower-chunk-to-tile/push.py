# A chunk.push_reduce (push-all-reduce) lowers to syn_push_reduce over the
# plan's push table, whose result the store stores; the plan's
# chunk.signal_span is dropped (the kernel finishes the all-reduce itself,
# no runtime counts its tiles), and chunk.abi records the push table. With
# a tile order (tile-reorder order=arrival) the helper names tiles by it.
# RUN: overlap-opt %s --plan 'all-reduce{tensor=c_ptr dim=0 world=2 size=M}' -p 'chunk-dependency-analysis,insert-signals,push-all-reduce,lower-chunk-to-tile' | filecheck %s
# RUN: overlap-opt %s --plan 'all-reduce{tensor=c_ptr dim=0 world=2 size=M}' -p 'chunk-dependency-analysis,tile-reorder{order=arrival},insert-signals,push-all-reduce,lower-chunk-to-tile' | filecheck %s --check-prefix=ORDER
import triton
import triton.language as tl


@triton.jit
def copy(x_ptr, c_ptr, M, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(c_ptr + rows, tl.load(x_ptr + rows, mask=rows < M), mask=rows < M)

# CHECK:      tile.func @copy({{.*}}chunk.abi = {{.*}}tables = [{param = "syn_push_ar_c_ptr_tab", count = "syn_push_ar_c_ptr_n", plan = "ar", tensor = "c_ptr", role = "push"}]
# CHECK:      %[[V:[0-9]+]] = tile.load
# CHECK:      %[[MASK:[0-9]+]] = tile.cmp "lt", %rows, %M
# CHECK-NEXT: %[[NO:[0-9]+]] = arith.constant {tile.origin = "lower-chunk-to-tile"} false
# CHECK-NEXT: %[[SUM:[0-9]+]] = tile.call_jit @syn_push_reduce(%[[V]], %[[PTRS:[0-9]+]], %[[MASK]], %syn_push_ar_c_ptr_tab, %syn_push_ar_c_ptr_n, %syn_flags, %syn_flags, %[[NO]], %syn_epoch, %syn_spin_limit, %syn_report)
# CHECK-NEXT: tile.store %[[SUM]], %[[PTRS]] mask %[[MASK]]
# CHECK-NEXT: tile.return
# CHECK-NOT:  chunk.signal_span
# CHECK-NOT:  chunk.push_reduce
# CHECK:      tile.func @syn_push_reduce(
# ORDER:      %[[YES:[0-9]+]] = arith.constant {tile.origin = "lower-chunk-to-tile"} true
# ORDER-NEXT: tile.call_jit @syn_push_reduce({{.*}}, %syn_flags, %syn_tile_order, %[[YES]], %syn_epoch
