# A tensor descriptor's atomics (`desc.atomic_add([i, j], value)`, the TMA
# reduction a split-K GEMM accumulates its K slices with on Hopper) import as
# tile.desc_atomic with the kind, on a descriptor made on the host (a
# TensorDescriptor argument) or in the kernel, and are emitted as written.
# Triton 3.6 has atomic_add, min, max, and, or and xor on descriptors; any
# other atomic method (no xchg, no cas) is refused naming the line.
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
# RUN: sed -e 's/d_desc.atomic_xor/d_desc.atomic_xchg/' %s > %t.py && not overlap-opt %t.py 2>&1 | filecheck %s --check-prefix=XCHG
# RUN: sed -e 's/atomic_xor(\[off, 0\], acc)/atomic_xor([off, 0], acc, acc)/' %s > %t2.py && not overlap-opt %t2.py 2>&1 | filecheck %s --check-prefix=ARGS
import triton
import triton.language as tl


@triton.jit
def splitk(a_desc, b_desc, c_desc, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
           SPLIT_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K):
        acc = tl.dot(a_desc.load([pid_m * BLOCK_M, k]), b_desc.load([k, pid_n * BLOCK_N]), acc)
    c_desc.atomic_add([pid_m * BLOCK_M, pid_n * BLOCK_N], acc)


@triton.jit
def kinds(x_ptr, d_ptr, M, N, BLOCK: tl.constexpr):
    d_desc = tl.make_tensor_descriptor(d_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    off = tl.program_id(0) * BLOCK
    rows = off + tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    acc = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    d_desc.atomic_min([off, 0], acc)
    d_desc.atomic_max(offsets=[off, 0], value=acc)
    d_desc.atomic_and([off, 0], acc)
    d_desc.atomic_or([off, 0], acc)
    d_desc.atomic_xor([off, 0], acc)

# CHECK-LABEL: tile.func @splitk(%a_desc: !tile.desc<2>, %b_desc: !tile.desc<2>, %c_desc: !tile.desc<2>
# CHECK:       tile.desc_atomic "add" %{{.*}}, %c_desc[%{{.*}}, %{{.*}}] : !tile.block<?x?xf32>, !tile.desc<2>, i32, i32
# CHECK-NEXT:  tile.return

# CHECK-LABEL: tile.func @kinds
# CHECK:       %d_desc = tile.make_tensor_descriptor %d_ptr
# CHECK:       tile.desc_atomic "min" %acc, %d_desc[%off, %{{.*}}]
# CHECK:       tile.desc_atomic "max" %acc, %d_desc[%off, %{{.*}}]
# CHECK:       tile.desc_atomic "and" %acc, %d_desc[%off, %{{.*}}]
# CHECK:       tile.desc_atomic "or" %acc, %d_desc[%off, %{{.*}}]
# CHECK:       tile.desc_atomic "xor" %acc, %d_desc[%off, %{{.*}}]

# EMIT:      def splitk(
# EMIT:          c_desc.atomic_add([pid_m * BLOCK_M, pid_n * BLOCK_N], acc)
# EMIT:      def kinds(
# EMIT:          d_desc.atomic_min([off, 0], acc)
# EMIT-NEXT:     d_desc.atomic_max([off, 0], acc)
# EMIT-NEXT:     d_desc.atomic_and([off, 0], acc)
# EMIT-NEXT:     d_desc.atomic_or([off, 0], acc)
# EMIT-NEXT:     d_desc.atomic_xor([off, 0], acc)

# XCHG: overlap-opt: error: {{.*}}.py:38: a tensor descriptor has no `atomic_xchg` in Triton 3.6 (it has atomic_add, atomic_min, atomic_max, atomic_and, atomic_or, atomic_xor){{$}}
# ARGS: overlap-opt: error: {{.*}}.py:38: unsupported `.atomic_xor()` arguments (only offsets and value)
