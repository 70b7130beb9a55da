# In a persistent kernel (chunk-dependency-analysis found its tile loop), a
# wait inside a loop becomes syn_wait_span_memo with the per-program memo
# syn_wait_memo, listed in chunk.abi: a program skips the poll when a tile's
# rows lie in the chunk it last saw arrive. A kernel with one tile per
# program keeps plain syn_wait_span (a memo would never hit), and signals
# need none; lower-chunk-to-tile{memo=false} (overlap{memo=false}) turns it off.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2 size=M}' -p 'overlap{backend=ce order=none}' -t triton | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2 size=M}' -p 'overlap{backend=ce order=none}' | filecheck %s --check-prefix=ABI
# RUN: sed -e 's/^    for tile in range(tl.program_id(0), tiles, PROGRAMS):/    for once in range(0, 1):\n        tile = tl.program_id(0)/' %s > %t.grid.py
# RUN: overlap-opt %t.grid.py --plan 'all-gather{tensor=a_ptr world=2 size=M}' -p 'overlap{backend=ce order=none}' -t triton | filecheck %s --check-prefix=GRID
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p 'overlap{backend=ce order=none}' | filecheck %s --check-prefix=SIGNAL
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2 size=M}' -p 'overlap{backend=ce order=none memo=false}' -t triton | filecheck %s --check-prefix=GRID
import triton
import triton.language as tl


@triton.jit
def persistent(a_ptr, c_ptr, M, K, stride_am, stride_cm, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
               PROGRAMS: tl.constexpr):
    tiles = tl.cdiv(M, BLOCK_M)
    for tile in range(tl.program_id(0), tiles, PROGRAMS):
        rows = tile * BLOCK_M + tl.arange(0, BLOCK_M)
        acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            cols = k0 + tl.arange(0, BLOCK_K)
            acc += tl.load(a_ptr + rows[:, None] * stride_am + cols[None, :])
        tl.store(c_ptr + rows[:, None] * stride_cm + tl.arange(0, BLOCK_K)[None, :], acc)

# CHECK:      def persistent({{.*}}, syn_wait_memo):
# CHECK:        for tile in range(tl.program_id(axis=0), tiles, PROGRAMS):
# CHECK:          syn_wait_span_memo(syn_flags, syn_wait_ag_a_ptr_tab, syn_wait_ag_a_ptr_n, {{.*}}, syn_epoch, syn_spin_limit, syn_report, syn_wait_memo)
# CHECK:      def syn_wait_span(
# CHECK:      def syn_wait_span_memo(flags, table, n, lo, hi, epoch_ptr, spin_limit, report, memo):
# CHECK:          slot = memo + 2 * tl.program_id(axis=0)
# CHECK:          if not known:
# CHECK-NEXT:       syn_wait_span(flags, table, n, lo, hi, epoch_ptr, spin_limit, report)

# ABI: chunk.abi = {{{.*}}memo = "syn_wait_memo"

# GRID:     def persistent({{[^)]*}}syn_wait_ag_a_ptr_n):
# GRID-NOT: syn_wait_memo
# GRID:     syn_wait_span(syn_flags,
# GRID-NOT: syn_wait_span_memo

# SIGNAL:     chunk.abi
# SIGNAL-NOT: memo
