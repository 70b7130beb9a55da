# Waits and signals of plans on tensor descriptors made on the host: the
# span's extent is the descriptor's block size (tile.desc_block_size at the top
# of the kernel), hoisted over a K loop the rows do not depend on; a store
# through the descriptor signals the same rows after it; verify-sync proves
# both. The lowered kernel reads the block size as `a_desc.block_shape[0]`.
# RUN: overlap-opt %s --kernel gemm --plan 'all-gather{tensor=a_desc world=2}' -p insert-signals,verify-sync | filecheck %s
# RUN: overlap-opt %s --kernel gemm --plan 'reduce-scatter{tensor=c_desc world=2}' -p insert-signals,verify-sync | filecheck %s --check-prefix=RS
# RUN: overlap-opt %s --kernel gemm --plan 'all-gather{tensor=a_desc world=2}' -p overlap -t triton | filecheck %s --check-prefix=EMIT
import triton
import triton.language as tl


@triton.jit
def gemm(a_desc, b_desc, c_desc, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for off_k in range(0, K, BLOCK_K):
        acc = tl.dot(a_desc.load([off_m, off_k]), b_desc.load([off_k, off_n]), acc)
    c_desc.store([off_m, off_n], acc)

# CHECK:      %[[BM:.*]] = tile.desc_block_size %a_desc[0 : i64] : !tile.desc<2>
# CHECK:      chunk.wait_span %off_m, %[[BM]] plan @ag tensor "a_desc" {tile.origin = "insert-signals"} : i32, !tile.constexpr
# CHECK-NEXT: scf.for
# CHECK:      tile.desc_load %a_desc[%off_m, %off_k]

# RS:      %[[BM:.*]] = tile.desc_block_size %c_desc[0 : i64] : !tile.desc<2>
# RS:      tile.desc_store %{{.*}}, %c_desc[%off_m, %off_n]
# RS-NEXT: chunk.signal_span %off_m, %[[BM]] plan @rs tensor "c_desc" {tile.origin = "insert-signals"} : i32, !tile.constexpr

# EMIT:      syn_wait_span(syn_flags, syn_wait_ag_a_desc_tab, syn_wait_ag_a_desc_n, off_m, off_m + a_desc.block_shape[0],
# EMIT-NEXT: for off_k in range(0, K, BLOCK_K):
