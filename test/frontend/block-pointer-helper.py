# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
# A jit helper that takes a block pointer (the attention tutorial's
# `_attn_fwd_inner`, which moves K and V with `tl.advance` through its loop)
# is imported into each caller: a block pointer is a compile-time record,
# so its offsets become the caller's values and the helper's loop carries
# them. The helper is not emitted on its own (nothing calls it once every
# call is inlined), its own helpers are; a helper may also make and return
# a block pointer. A helper taking only pointers is called as before.
import triton
import triton.language as tl


@triton.jit
def scale(x, FACTOR: tl.constexpr):
    return x * FACTOR


@triton.jit
def sum_blocks(acc, x_block, n, BLOCK: tl.constexpr):
    for _ in range(0, n, BLOCK):
        acc += scale(tl.load(x_block, boundary_check=(0,), padding_option="zero"), 2)
        x_block = tl.advance(x_block, (BLOCK, 0))
    return acc


@triton.jit
def row_block(base, n, stride, start, BLOCK: tl.constexpr):
    return tl.make_block_ptr(base=base, shape=(n, 1), strides=(stride, 1), offsets=(start, 0),
                             block_shape=(BLOCK, 1), order=(1, 0))


@triton.jit
def plain(ptr, BLOCK: tl.constexpr):
    return tl.load(ptr + tl.arange(0, BLOCK))


@triton.jit
def kernel(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
    x_block = tl.make_block_ptr(base=x_ptr, shape=(n, 1), strides=(stride, 1), offsets=(0, 0),
                                block_shape=(BLOCK, 1), order=(1, 0))
    acc = tl.zeros((BLOCK, 1), dtype=tl.float32)
    acc = sum_blocks(acc, x_block, n, BLOCK)
    y_block = row_block(y_ptr, n, stride, 0, BLOCK)
    tl.store(y_block, acc + plain(x_ptr, BLOCK)[:, None])

# CHECK-NOT:   tile.func @sum_blocks
# CHECK-NOT:   tile.func @row_block
# CHECK-LABEL: tile.func @scale
# CHECK-LABEL: tile.func @plain
# CHECK-LABEL: tile.func @kernel
# CHECK:       scf.for
# CHECK:       tile.load
# CHECK:       tile.call_jit @scale
# CHECK:       scf.yield
# CHECK:       tile.call_jit @plain
# CHECK:       tile.store
# CHECK-NOT:   tile.func @sum_blocks

# EMIT-NOT:  def sum_blocks
# EMIT-NOT:  def row_block
# EMIT:      def scale(x, FACTOR: tl.constexpr):
# EMIT:      def plain(ptr, BLOCK: tl.constexpr):
# EMIT:      def kernel(
# EMIT:          x_block_off0 = 0
# EMIT-NEXT:     for _ in range(0, n, BLOCK):
# EMIT-NEXT:         tmp = x_block_off0 + tl.arange(0, BLOCK)
# EMIT-NEXT:         tmp_1 = tl.load(x_ptr + tmp[:, None] * stride + tl.arange(0, 1)[None, :], mask=((tmp >= 0) & (tmp < n))[:, None], other=0.0)
# EMIT-NEXT:         tmp_2 = scale(tmp_1, 2)
# EMIT-NEXT:         acc = acc + tmp_2
# EMIT-NEXT:         x_block_off0 = x_block_off0 + BLOCK
# EMIT:          tl.store(y_ptr + tl.arange(0, BLOCK)[:, None] * stride + tl.arange(0, 1)[None, :], acc + tl.expand_dims(tmp_3, 1))
# EMIT-NOT:  tl.advance
