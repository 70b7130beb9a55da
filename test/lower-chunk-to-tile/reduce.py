# chunk.reduce_span (from fuse-peer-reduction) becomes a call of the
# syn_reduce_span helper whose result the store stores; the kernel gets the
# reduce table, its row count and the staging buffer, and chunk.abi lists them
# under role "reduce" for the runtime. No chunk op is left.
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=4 size=M}' -p 'select-backend{backend=ce},fuse-peer-reduction,lower-chunk-to-tile' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def scale(a_ptr, c_ptr, M, N, stride_am, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    c_desc.store([off_m, off_n], a_desc.load([off_m, off_n]) * 2)

# CHECK:      tile.func @scale({{.*}}%syn_reduce_rs_c_ptr_tab: !tile.ptr, %syn_reduce_rs_c_ptr_n: !tile.scalar, %syn_staging_rs_c_ptr: !tile.ptr
# CHECK-SAME: tables = [{param = "syn_reduce_rs_c_ptr_tab", count = "syn_reduce_rs_c_ptr_n", plan = "rs", tensor = "c_ptr", role = "reduce", staging = "syn_staging_rs_c_ptr"}]
# CHECK-NOT:  chunk.reduce_span
# CHECK:      %[[R:.*]] = tile.call_jit @syn_reduce_span(%{{.*}}, %syn_flags, %syn_reduce_rs_c_ptr_tab, %syn_reduce_rs_c_ptr_n, %off_m, %off_n, %syn_staging_rs_c_ptr, %syn_epoch, %syn_spin_limit, %syn_report, %BLOCK_M, %BLOCK_N)
# CHECK-NEXT: tile.desc_store %[[R]], %c_desc[%off_m, %off_n]
# CHECK:      tile.func @syn_reduce_span(
# CHECK:      tile.func @syn_spin(
