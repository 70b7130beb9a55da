import triton
import triton.language as tl


@triton.jit
def moved(x_block, BLOCK: tl.constexpr):
    return tl.advance(x_block, (BLOCK,))


@triton.jit
def kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    x_block = tl.make_block_ptr(base=x_ptr, shape=(n,), strides=(1,), offsets=(0,), block_shape=(BLOCK,), order=(0,))
    tl.store(y_ptr + tl.arange(0, BLOCK), moved(x_block, BLOCK) + 1)
