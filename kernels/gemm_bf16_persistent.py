"""C = A @ B by a persistent kernel: PROGRAMS programs walk all output tiles.

The benchmark's third GEMM (``GemmConfig(kernel="persistent")``): the TMA
kernel of ``gemm_bf16_tma.py`` inside a tile loop ``for tile in
range(tl.program_id(0), tiles, PROGRAMS)``, launched on ``PROGRAMS`` =
min(tiles, SMs) programs (``bench/gemm.py``), the shape of Hopper's
persistent GEMMs. syncopate treats the loop variable as the tile index
(chunk-dependency-analysis), runs the tiles in arrival or departure order
by remapping it (tile-reorder), and waits (all-gather) or signals
(reduce-scatter) per tile inside the loop.
"""

import triton
import triton.language as tl


@triton.jit
def gemm_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                           stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                           PROGRAMS: tl.constexpr, GROUP_M: tl.constexpr, FLATTEN: tl.constexpr,
                           B_NK: tl.constexpr = False):
    """Same arguments as ``gemm_tma_kernel`` plus the program count and the
    L2 group height: consecutive tiles walk GROUP_M tile rows column by
    column, so the programs running at once share B's column tiles and a few
    of A's row tiles instead of streaming all of B per tile row. FLATTEN
    asks Triton to pipeline the tile and K loops as one (``tl.range``'s
    ``flatten``), so the next tile's loads start under this tile's epilogue.
    B_NK: B is ``W.t()`` with ``W`` (N x K) contiguous, as ``nn.Linear``
    keeps its weight (``stride_bk`` is 1): B's blocks are read from W as
    BLOCK_N x BLOCK_K and multiplied transposed, which the tensor cores take
    as they are; otherwise B (K x N) has contiguous rows."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_K])
    if B_NK:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[stride_bn, 1], block_shape=[BLOCK_N, BLOCK_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_M, BLOCK_N])
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    for tile in tl.range(tl.program_id(axis=0), num_m * num_n, PROGRAMS, flatten=FLATTEN):
        first_m = (tile // (GROUP_M * num_n)) * GROUP_M
        group_rows = min(num_m - first_m, GROUP_M)
        off_m = (first_m + tile % group_rows) * BLOCK_M
        off_n = ((tile % (GROUP_M * num_n)) // group_rows) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            a = a_desc.load([off_m, k0])
            if B_NK:
                b = b_desc.load([off_n, k0]).T
            else:
                b = b_desc.load([k0, off_n])
            acc = tl.dot(a, b, acc)
        c_desc.store([off_m, off_n], acc.to(c_ptr.dtype.element_ty))
