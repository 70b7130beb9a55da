# A loop around a wait loses tl.range's flatten and warp_specialize (literal or
# constexpr): they let the next iteration's loads start before this
# iteration's code, so a tile's loads would overtake its own wait. Loops
# around signals only, and loops without sync, keep their options.
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2 size=M}' -p 'overlap{backend=ce order=none}' -t triton | filecheck %s
# RUN: sed -e 's/flatten=FLATTEN/flatten=True, warp_specialize=True/' %s > %t.literal.py
# RUN: overlap-opt %t.literal.py --plan 'all-gather{tensor=a_ptr world=2 size=M}' -p 'overlap{backend=ce order=none}' -t triton | filecheck %s
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p 'overlap{backend=ce order=none}' -t triton | filecheck %s --check-prefix=SIGNAL
import triton
import triton.language as tl


@triton.jit
def persistent(a_ptr, c_ptr, M, K, stride_am, stride_cm, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
               PROGRAMS: tl.constexpr, FLATTEN: tl.constexpr):
    tiles = tl.cdiv(M, BLOCK_M)
    for tile in tl.range(tl.program_id(0), tiles, PROGRAMS, flatten=FLATTEN):
        rows = tile * BLOCK_M + tl.arange(0, BLOCK_M)
        acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
        for k0 in tl.range(0, K, BLOCK_K, num_stages=3):
            cols = k0 + tl.arange(0, BLOCK_K)
            acc += tl.load(a_ptr + rows[:, None] * stride_am + cols[None, :])
        tl.store(c_ptr + rows[:, None] * stride_cm + tl.arange(0, BLOCK_K)[None, :], acc)

# CHECK:      for tile in tl.range(tl.program_id(axis=0), tiles, PROGRAMS):
# CHECK-NOT:    flatten
# CHECK:        syn_wait_span_memo(
# CHECK:        for k0 in tl.range(0, K, BLOCK_K, num_stages=3):

# SIGNAL:      for tile in tl.range(tl.program_id(axis=0), tiles, PROGRAMS, flatten=FLATTEN):
# SIGNAL:        for k0 in tl.range(0, K, BLOCK_K, num_stages=3):
# SIGNAL:        syn_signal_span(
