# RUN: overlap-opt %s | filecheck %s
# RUN: overlap-opt %s -t triton | filecheck %s --check-prefix=EMIT
# A scalar plus an expanded 1-D block (FlagGems: `pid * BLOCK_M +
# tl.arange(0, BLOCK_M)[:, None]`) is imported as the expanded sum, the same
# values in the form the analysis reads as one index. A block plus a block,
# or a scalar times an expanded block, is left as written.
import triton
import triton.language as tl


@triton.jit
def rows_first(X, Y, M, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    back = tl.arange(0, BLOCK_N)[None, :] - 1
    scaled = 2 * tl.arange(0, BLOCK_M)[:, None]
    tl.store(Y + rows * BLOCK_N + back + scaled, tl.load(X + rows, mask=rows < M))

# CHECK:      %[[S:.*]] = tile.add %{{.*}}, %{{.*}} : i32, !tile.block<?xi32> -> !tile.block<?xi32>
# CHECK-NEXT: %rows = tile.expand_dims %[[S]], 1
# CHECK:      %[[B:.*]] = tile.sub %{{.*}}, %{{.*}} : !tile.block<?xi32>, i32 -> !tile.block<?xi32>
# CHECK-NEXT: %back = tile.expand_dims %[[B]], 0
# CHECK:      %scaled = tile.mul
# EMIT:       rows = (pid * BLOCK_M + tl.arange(0, BLOCK_M))[:, None]
# EMIT:       back = (tl.arange(0, BLOCK_N) - 1)[None, :]
# EMIT:       scaled = 2 * tl.arange(0, BLOCK_M)[:, None]
