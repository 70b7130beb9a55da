# What the epilogue reduction refuses, each with the kernel, tensor and plan named.
# Backends not chosen yet, or not ce.
# RUN: not overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2}' -p 'fuse-peer-reduction' 2>&1 | filecheck %s --check-prefix=UNSET
# RUN: not overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2}' -p 'select-backend{backend=nccl},fuse-peer-reduction' 2>&1 | filecheck %s --check-prefix=NCCL
# Chunks along the columns.
# RUN: not overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2 dim=1}' -p 'select-backend{backend=ce},fuse-peer-reduction' 2>&1 | filecheck %s --check-prefix=DIM
# A pointer store: no tile position to read staged partials at.
# RUN: sed -e 's/    c_desc.store(\[off_m, off_n\], x)/    tl.store(c_ptr + (off_m + tl.arange(0, BLOCK_M))[:, None] * stride_cm + (off_n + tl.arange(0, BLOCK_N))[None, :], x)/' %s > %t.ptr.py
# RUN: not overlap-opt %t.ptr.py --plan 'reduce-scatter{tensor=c_ptr world=2}' -p 'select-backend{backend=ce},fuse-peer-reduction' 2>&1 | filecheck %s --check-prefix=PTR
# A descriptor atomic (split-K): several programs add into each tile, none holds its value.
# RUN: sed -e 's/    c_desc.store(\[off_m, off_n\], x)/    c_desc.atomic_add([off_m, off_n], x)/' %s > %t.atomic.py
# RUN: not overlap-opt %t.atomic.py --plan 'reduce-scatter{tensor=c_ptr world=2}' -p 'select-backend{backend=ce},fuse-peer-reduction' 2>&1 | filecheck %s --check-prefix=ATOMIC
# A store inside a loop that is not a persistent tile loop.
# RUN: sed -e 's/    c_desc.store(\[off_m, off_n\], x)/    for k in range(0, 2):\n        c_desc.store([off_m, off_n], x * k)/' %s > %t.loop.py
# RUN: not overlap-opt %t.loop.py --plan 'reduce-scatter{tensor=c_ptr world=2}' -p 'select-backend{backend=ce},fuse-peer-reduction' 2>&1 | filecheck %s --check-prefix=LOOP
# The overlap pipeline's option: anything but stream or epilogue.
# RUN: not overlap-opt %s --plan 'reduce-scatter{tensor=c_ptr world=2}' -p 'overlap{reduce=tail}' 2>&1 | filecheck %s --check-prefix=OPT
import triton
import triton.language as tl


@triton.jit
def rs_kernel(a_ptr, c_ptr, M, N, stride_am, stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    x = a_desc.load([off_m, off_n])
    c_desc.store([off_m, off_n], x)

# UNSET: fuse-peer-reduction: @rs_kernel stores 'c_ptr' (plan @rs): chunk {{[0-9]+}} has backend unset (run select-backend first); the epilogue reduction reads the partials the ce backend stages at their owner
# NCCL: fuse-peer-reduction: @rs_kernel stores 'c_ptr' (plan @rs): chunk {{[0-9]+}} has backend nccl; the epilogue reduction reads the partials the ce backend stages at their owner
# DIM: fuse-peer-reduction: @rs_kernel stores 'c_ptr' (plan @rs) in chunks along dim 1; the epilogue reduction sums row chunks (dim 0)
# PTR: fuse-peer-reduction: @rs_kernel stores 'c_ptr' (plan @rs) through pointers; the epilogue reduction needs a tensor-descriptor store desc.store([row, col], value), whose tile position it reads
# LOOP: fuse-peer-reduction: @rs_kernel stores 'c_ptr' (plan @rs) inside a loop; the epilogue reduction needs one store per tile (at the top level or in a persistent kernel's tile loop)
# OPT: overlap: unknown reduce 'tail', expected one of stream, epilogue
# ATOMIC: fuse-peer-reduction: @rs_kernel stores 'c_ptr' (plan @rs) with `desc.atomic_add`: several programs combine into each tile, so no one of them holds the tile's value to add the peers' partials to; the epilogue reduction needs one desc.store([row, col], value) per tile (reduce=stream, the default, leaves the add to the runtime)
