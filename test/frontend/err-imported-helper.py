# RUN: not overlap-opt %s 2>&1 | filecheck %s
# An imported name called in a kernel must be a @triton.jit function in its
# module's source (here a plain Python function).
import triton
import triton.language as tl

from .inputs.helperpkg.tiles import host_grid


@triton.jit
def bad(x_ptr, M, N):
    g = host_grid(M, N, 8, 8)
    tl.store(x_ptr, g)

# CHECK: {{.*}}err-imported-helper.py:12: unsupported call to `host_grid`: `host_grid` is not a @triton.jit function of tiles.py (module `.inputs.helperpkg.tiles`)
