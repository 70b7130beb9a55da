"""A kernel calling its helpers through module attributes: `tiles.f` after
`from . import tiles` and after `import helperpkg.tiles as tiles_mod`."""

import triton
import triton.language as tl

import helperpkg.tiles as tiles_mod
from . import tiles


@triton.jit
def attribute_calls(x_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m, pid_n = tiles.tile_coords(tl.program_id(0), M, N, BLOCK_M, BLOCK_N)
    again_m, again_n = tiles_mod.tile_coords(tl.program_id(0), M, N, BLOCK_M, BLOCK_N)
    tl.store(x_ptr + pid_m * N + pid_n, again_m + again_n)
