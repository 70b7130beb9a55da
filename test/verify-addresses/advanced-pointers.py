# K/V blocks read through pointers built before the loop and advanced by a
# block every iteration (`k_ptrs += BLOCK_N * stride_kn`, the flash-attention
# tutorial's spelling). insert-signals waits for each iteration's block with
# chunk.wait_span_loop, whose start it writes `first + (iv - lb) // step *
# BLOCK_N`; the verifier takes that division as exact (iv - lb is a multiple
# of the step at every iteration) and proves the loads covered.
# RUN: overlap-opt %s --plan 'all-gather{tensor=k_ptr dim=0 size=N_KV world=2}' -p 'chunk-dependency-analysis,insert-signals,verify-addresses{strict=true}' | filecheck %s
# Edge: the same kernel through the whole pipeline to Triton: one loop wait per iteration.
# RUN: overlap-opt %s --plan 'all-gather{tensor=k_ptr dim=0 size=N_KV world=2}' -p overlap -t triton | filecheck %s --check-prefix=TRITON
# Error: without waits (the negative control) the loads are uncovered, named by line.
# RUN: not overlap-opt %s --plan 'all-gather{tensor=k_ptr dim=0 size=N_KV world=2}' -p 'chunk-dependency-analysis,insert-signals{waits=false},verify-addresses{strict=true}' 2>&1 | filecheck %s --check-prefix=NOWAIT
# Error: a loop wait whose start is not first + iteration * step (here the
# iteration's division by the step dropped) covers nothing: uncovered.
# RUN: overlap-opt %s --plan 'all-gather{tensor=k_ptr dim=0 size=N_KV world=2}' -p 'chunk-dependency-analysis,insert-signals' | sed 's/tile.floordiv %\([0-9a-z_]*\), %\([0-9a-z_]*\) {tile.origin = "insert-signals"}/tile.mul %\1, %\2 {tile.origin = "insert-signals"}/' > %t.broken.mlir
# RUN: not overlap-opt %t.broken.mlir -p 'verify-addresses{strict=true}' 2>&1 | filecheck %s --check-prefix=BROKEN
import triton
import triton.language as tl


@triton.jit
def kv_rowsum(k_ptr, o_ptr, N_KV, stride_kn, stride_kd, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    ds = tl.arange(0, BLOCK_D)
    offs_n = tl.arange(0, BLOCK_N)
    k_ptrs = k_ptr + offs_n[:, None] * stride_kn + ds[None, :] * stride_kd
    acc = tl.zeros((BLOCK_D,), dtype=tl.float32)
    for start_n in range(0, N_KV, BLOCK_N):
        k = tl.load(k_ptrs, mask=(start_n + offs_n)[:, None] < N_KV, other=0.0)
        acc += tl.sum(k, 0)
        k_ptrs += BLOCK_N * stride_kn
    tl.store(o_ptr + tl.program_id(axis=0) * BLOCK_D + ds, acc)

# CHECK:      scf.for
# CHECK:      chunk.wait_span_loop
# CHECK-NEXT: tile.load
# TRITON:     for start_n in range(0, N_KV, BLOCK_N):
# TRITON:       syn_wait_span_loop(
# TRITON-NEXT:  k = tl.load(k_ptrs
# NOWAIT:     verify-addresses: {{.*}}advanced-pointers.py:{{[0-9]+}}: 'tile.load' is uncovered
# BROKEN:     verify-addresses: 'tile.load' {{.*}} is uncovered: reads rows [BLOCK_N*iv0, {{.*}} waits that dominate it: none
