# A gather through loaded row ids waits for the range [min, max + 1) of the
# ids. The index `ids[:, None] // TOP_K`, written in a loop over the hidden
# dim but computed from values defined before it, moves before the loop with
# its range, so the one wait is hoisted over the loop. verify-sync proves it.
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p insert-signals,verify-sync | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=x_ptr world=2}' -p overlap -t triton | filecheck %s --check-prefix=EMIT
import triton
import triton.language as tl


@triton.jit
def dispatch(x_ptr, ids_ptr, out_ptr, hidden, stride_x, stride_o, TOP_K: tl.constexpr, BLOCK_T: tl.constexpr,
             BLOCK_H: tl.constexpr):
    offs_t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    ids = tl.load(ids_ptr + offs_t)
    for h in range(0, hidden, BLOCK_H):
        offs_h = h + tl.arange(0, BLOCK_H)
        x = tl.load(x_ptr + ids[:, None] // TOP_K * stride_x + offs_h[None, :])
        tl.store(out_ptr + offs_t[:, None] * stride_o + offs_h[None, :], x)

# CHECK:      %[[IDX:.*]] = tile.floordiv
# CHECK-NEXT: %[[WIDE:.*]] = tile.cast %[[IDX]] {tile.origin = "chunk-dependency-analysis", dtype = i64}
# CHECK-NEXT: %[[LO:.*]] = tile.reduce "min" %[[WIDE]] {tile.origin = "chunk-dependency-analysis"}
# CHECK:      %[[EXTENT:.*]] = tile.sub %{{.*}}, %[[LO]] {tile.origin = "chunk-dependency-analysis"}
# CHECK:      chunk.wait_span %[[LO]], %[[EXTENT]] plan @ag tensor "x_ptr" {tile.origin = "insert-signals"} : i64, i64
# CHECK-NEXT: scf.for
# CHECK-NOT:  chunk.wait_span
# CHECK:      tile.mul %[[IDX]], %stride_x
# CHECK:      %x = tile.load

# EMIT:      [[IDX:tmp_[0-9]+]] = tl.expand_dims(ids, 1) // TOP_K
# EMIT-NEXT: # inserted by chunk-dependency-analysis
# EMIT-NEXT: [[WIDE:tmp_[0-9]+]] = [[IDX]].to(tl.int64)
# EMIT-NEXT: # inserted by lower-chunk-to-tile
# EMIT-NEXT: syn_wait_span(syn_flags, syn_wait_ag_x_ptr_tab, syn_wait_ag_x_ptr_n, tl.min([[WIDE]]), tl.max([[WIDE]]) + 1,
# EMIT-NEXT: for h in range(0, hidden, BLOCK_H):
# EMIT:      x = tl.load(x_ptr + [[IDX]] * stride_x
