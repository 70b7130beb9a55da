# A parameter used as `param.load([...])` / `param.store([...], v)` is a tensor
# descriptor made on the host (a TensorDescriptor argument): typed
# !tile.desc<rank>, its loads and stores are descriptor ops, and the emitted
# kernel keeps them as written.
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
import triton
import triton.language as tl


@triton.jit
def host_desc_copy(x_desc, y_desc, out_ptr, BLOCK: tl.constexpr):
    off = tl.program_id(0) * BLOCK
    x = x_desc.load([off, 0])
    y_desc.store([off, 0], x)
    tl.store(out_ptr + off, 1.0)

# CHECK:      tile.func @host_desc_copy(%x_desc: !tile.desc<2>, %y_desc: !tile.desc<2>, %out_ptr: !tile.ptr, %BLOCK: !tile.constexpr)
# CHECK:      %x = tile.desc_load %x_desc[%off, %{{.*}}] : !tile.desc<2>, i32, i32 -> !tile.any
# CHECK:      tile.desc_store %x, %y_desc[%off, %{{.*}}] : !tile.any, !tile.desc<2>, i32, i32

# EMIT:       def host_desc_copy(x_desc, y_desc, out_ptr, BLOCK: tl.constexpr):
# EMIT:           x = x_desc.load([off, 0])
# EMIT-NEXT:      y_desc.store([off, 0], x)
