# Edge cases: a one-tile-per-program kernel (store at the top level) is fused
# the same way; a module whose only plan is an all-gather is left alone.
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=4 size=M}' -p 'select-backend{backend=ce},fuse-peer-reduction' | filecheck %s
# RUN: overlap-opt %s --plan 'all-gather{tensor=a_ptr world=2 size=M}' -p 'select-backend{backend=ce},fuse-peer-reduction' | filecheck %s --check-prefix=AG
import triton
import triton.language as tl


@triton.jit
def scale(a_ptr, c_ptr, M, N, stride_am, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    c_desc.store([off_m, off_n], a_desc.load([off_m, off_n]) * 2)

# CHECK:      %[[R:.*]] = chunk.reduce_span %{{.*}} rows %off_m, %BLOCK_M cols %off_n, %BLOCK_N plan @rs tensor "c_ptr"
# CHECK-NEXT: tile.desc_store %[[R]], %c_desc[%off_m, %off_n]
# AG-NOT: chunk.reduce_span
# AG: tile.desc_store
