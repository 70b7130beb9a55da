# RUN: overlap-opt %S/inputs/helperpkg/relative.py | filecheck %s
# RUN: overlap-opt %S/inputs/helperpkg/attribute.py | filecheck %s --check-prefix=ATTR
# A jit helper imported from another module of the package (here relatively
# and renamed: `from .tiles import tile_coords as coords`) is found from the
# module's source, never run, and imported like a helper of the kernel's own
# file: a tile.func under its own name, called with tile.call_jit, with the
# helpers it calls in its module and the module-level Python they use (the
# `from triton import jit` its decorator needs) in the prelude; its
# constexpr global is read as a literal. The import itself is not carried.

# CHECK:       builtin.module attributes {tile.source = "relative.py", tile.prelude = "from triton import jit\0AGROUP_M = tl.constexpr(2)"}
# CHECK-LABEL: tile.func @scale_tiles
# CHECK:       %pid_m, %pid_n = tile.call_jit @tile_coords(%{{.*}}, %M, %N, %BLOCK_M, %BLOCK_N) : (i32, !tile.scalar, !tile.scalar, !tile.constexpr, !tile.constexpr) -> (!tile.any, !tile.any)
# CHECK-LABEL: tile.func @tile_coords(%pid: !tile.any, %M: !tile.any, %N: !tile.any, %BLOCK_M: !tile.constexpr, %BLOCK_N: !tile.constexpr) -> (!tile.any, !tile.any)
# CHECK-SAME:  decorators = ["jit"]
# CHECK:       tile.call_jit @_group_of(%pid, %num_n)
# CHECK:       %[[G:.*]] = arith.constant 2 : i32
# CHECK-NEXT:  %first_m = tile.mul %{{.*}}, %[[G]]
# CHECK-LABEL: tile.func @_group_of(%pid: !tile.any, %num_n: !tile.any) -> !tile.any
# CHECK-NOT:   tile.func

# Through a module attribute (`from . import tiles`, `tiles.tile_coords`;
# `import helperpkg.tiles as tiles_mod`): the same helper, imported once; the
# module imports are not carried.
# ATTR:       builtin.module attributes {tile.source = "attribute.py", tile.prelude = "from triton import jit\0AGROUP_M = tl.constexpr(2)"}
# ATTR:       %pid_m, %pid_n = tile.call_jit @tile_coords(
# ATTR:       %again_m, %again_n = tile.call_jit @tile_coords(
# ATTR-COUNT-1: tile.func @tile_coords(
# ATTR-NOT:   tile.func @tile_coords(
