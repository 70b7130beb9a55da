# tl.full((), value, dtype) is a 0-d value of dtype (Unsloth writes it for typed scalars), not a rank-0 block.
# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
import triton
import triton.language as tl


@triton.jit
def scaled(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    zero = tl.full((), 0.0, tl.float32)
    scale = tl.full([], 2, dtype=tl.int32)
    x = tl.load(x_ptr + rows, mask=rows < M, other=zero)
    tl.store(y_ptr + rows, x * scale + zero, mask=rows < M)

# CHECK-LABEL: tile.func @scaled
# CHECK:       %zero = tile.splat %{{.*}} to[] {dtype = f32} : f32, -> f32
# CHECK:       %scale = tile.splat %{{.*}} to[] {dtype = i32} : i32, -> i32
# CHECK:       tile.load {{.*}} other %zero : f32
# EMIT:        zero = tl.full((), 0.0, dtype=tl.float32)
# EMIT:        scale = tl.full((), 2, dtype=tl.int32)
