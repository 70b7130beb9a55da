# reduce=epilogue adds fuse-peer-reduction after select-backend: the store
# stores syn_reduce_span's sum; the default (reduce=stream) leaves the store
# alone. Any other value is an error naming the option.
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p 'overlap{backend=ce reduce=epilogue}' -t triton | filecheck %s --check-prefix=EPI
# RUN: overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p 'overlap{backend=ce}' -t triton | filecheck %s --check-prefix=STREAM
# RUN: not overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p 'overlap{reduce=later}' 2>&1 | filecheck %s --check-prefix=BAD
# The pass's own preconditions still apply inside the pipeline (nccl chunks).
# RUN: not overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2 size=M}' -p 'overlap{backend=nccl reduce=epilogue}' 2>&1 | filecheck %s --check-prefix=NCCL
import triton
import triton.language as tl


@triton.jit
def double(a_ptr, c_ptr, M, N, stride_am, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    c_desc.store([off_m, off_n], a_desc.load([off_m, off_n]) * 2)

# EPI:      [[T:[a-z_0-9]+]] = syn_reduce_span(
# EPI-NEXT: c_desc.store([off_m, off_n], [[T]])
# EPI:      syn_signal_span(
# STREAM-NOT: syn_reduce_span
# STREAM:     c_desc.store([off_m, off_n], tmp_{{[0-9]+}} * 2)
# STREAM:     syn_signal_span(
# BAD: overlap: unknown reduce 'later', expected one of stream, epilogue
# NCCL: fuse-peer-reduction: @double stores 'c_ptr' (plan @rs): chunk {{[0-9]+}} has backend nccl
