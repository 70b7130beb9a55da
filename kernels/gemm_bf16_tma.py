"""C = A @ B through device-side tensor descriptors, one tile per program.

The benchmark's second GEMM (``GemmConfig(kernel="tma")``): TMA loads and
stores on Hopper instead of pointer arithmetic, otherwise the same program
as ``gemm_bf16.py`` (same arguments, so one launch code runs both). The
chunk-dependency analysis bounds descriptor loads like pointer loads. Host
side, Triton needs a scratch allocator for the descriptors
(``triton.set_allocator``; ``bench/gemm.py`` sets one).
"""

import triton
import triton.language as tl


@triton.jit
def gemm_tma_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """The same GEMM through device-side tensor descriptors (TMA loads and
    stores on Hopper; rows must be contiguous, ``stride_*k``/``stride_*n`` are
    1). Out-of-bounds parts of a block are zero-filled on load and dropped on
    store, so it needs no masks. Same arguments as ``gemm_kernel``."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_M, BLOCK_N])
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, k0])
        b = b_desc.load([k0, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(c_ptr.dtype.element_ty))
