# RUN: overlap-opt %S/../frontend/inputs/helperpkg/relative.py -t triton -o %t.py
# RUN: filecheck %s --input-file %t.py
# RUN: rm -rf %t.dir && mkdir -p %t.dir && cd %t.dir && env TRITON_INTERPRET=1 %python %S/inputs/run_imported_helper.py %t.py %S/../frontend/inputs | filecheck %s --check-prefix=OUT
# A jit helper imported from another module of the user's package
# (`from .tiles import tile_coords as coords`) is carried into the emitted
# file with the helpers it calls and the module-level Python they use, so
# the file imports and runs from any folder; the call uses the helper's own
# name. The relative import itself is not carried.

# CHECK-NOT:   import {{.*}}tiles
# CHECK:       from triton import jit
# CHECK:       def scale_tiles(
# CHECK-NEXT:      pid_m, pid_n = tile_coords(tl.program_id(axis=0), M, N, BLOCK_M, BLOCK_N)
# CHECK:       @jit
# CHECK-NEXT:  def tile_coords(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
# CHECK:           tmp = _group_of(pid, num_n)
# CHECK:       @triton.jit
# CHECK-NEXT:  def _group_of(pid, num_n):

# OUT: emitted imports helperpkg: False
# OUT: max_diff=0.0 nonzero=True
