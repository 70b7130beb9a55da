# A persistent TMA GEMM: the stored tile becomes the tile plus the peers'
# partials of its own rows (chunk.reduce_span, rows and columns from the
# descriptor store's offsets and block shape); the store stores that, and the
# signal still follows the store.
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p 'insert-signals,select-backend{backend=ce},fuse-peer-reduction' | filecheck %s
# Through lower-chunk-to-tile: a call of syn_reduce_span on the reduce table and staging buffer.
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p 'insert-signals,select-backend{backend=ce},fuse-peer-reduction,lower-chunk-to-tile' -t triton | filecheck %s --check-prefix=PY
import triton
import triton.language as tl


@triton.jit
def gemm_rs(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
            BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PROGRAMS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_M, BLOCK_N])
    num_n = tl.cdiv(N, BLOCK_N)
    for tile in range(tl.program_id(0), tl.cdiv(M, BLOCK_M) * num_n, PROGRAMS):
        off_m = (tile // num_n) * BLOCK_M
        off_n = (tile % num_n) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            acc = tl.dot(a_desc.load([off_m, k0]), b_desc.load([k0, off_n]), acc)
        c_desc.store([off_m, off_n], acc.to(c_ptr.dtype.element_ty))

# CHECK:      scf.for %tile
# CHECK:        %[[V:.*]] = tile.call ".to"
# CHECK-NEXT:   %[[R:.*]] = chunk.reduce_span %[[V]] rows %off_m, %BLOCK_M cols %off_n, %BLOCK_N plan @rs tensor "c_ptr" {tile.origin = "fuse-peer-reduction"}
# CHECK-NEXT:   tile.desc_store %[[R]], %c_desc[%off_m, %off_n]
# CHECK-NEXT:   chunk.signal_span %off_m, %BLOCK_M plan @rs tensor "c_ptr"

# PY:      def gemm_rs({{.*}}syn_reduce_rs_c_ptr_tab, syn_reduce_rs_c_ptr_n, syn_staging_rs_c_ptr
# PY:          [[T:[a-z_0-9]+]] = syn_reduce_span(acc.to(c_ptr.dtype.element_ty), syn_flags, syn_reduce_rs_c_ptr_tab, syn_reduce_rs_c_ptr_n, off_m, off_n, syn_staging_rs_c_ptr, syn_epoch, syn_spin_limit, syn_report, BLOCK_M, BLOCK_N)
# PY-NEXT:     c_desc.store([off_m, off_n], [[T]])
# PY:      def syn_reduce_span(value, flags, table, n, lo, col, staging, epoch_ptr, spin_limit, report, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
