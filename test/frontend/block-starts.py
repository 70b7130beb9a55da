# An index block `start + tl.arange(0, B)` assigned in a branch or carried by a
# loop leaves the `if` / crosses iterations as its scalar start, and is rebuilt
# where it is handed on; a block of any other form is carried whole.
# RUN: overlap-opt %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def tile_offsets(x_ptr, y_ptr, n_tiles, BLOCK: tl.constexpr, NUM_SMS: tl.constexpr):
    tile_id = tl.program_id(0) - NUM_SMS
    offs = tl.arange(0, BLOCK)
    for ki in range(0, n_tiles * 2):
        if ki % 2 == 0:
            tile_id += NUM_SMS
            offs = tile_id * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))

# CHECK-LABEL: tile.func @tile_offsets
# CHECK:       %tile_id_1, %offs_start = scf.for %ki = {{.*}} iter_args(%tile_id_2 = %tile_id, %offs_start_1 = %{{.*}}) -> (i32, i32)
# CHECK:         %offs_1 = tile.add %offs_start_1, %{{.*}} : i32, !tile.block<?xi32>
# CHECK:         %tile_id_3, %offs_start_2 = scf.if %{{.*}} -> (i32, i32)
# CHECK:           %[[START:.*]] = tile.mul %tile_id_4, %BLOCK
# CHECK:           scf.yield %tile_id_4, %[[START]] : i32, i32
# CHECK:         } else {
# CHECK-NEXT:      scf.yield %tile_id_2, %offs_start_1 : i32, i32
# CHECK:         %offs_3 = tile.add %offs_start_2, %{{.*}}
# CHECK-NEXT:    tile.addptr %y_ptr, %offs_3
# CHECK:         scf.yield %tile_id_3, %offs_start_2 : i32, i32


@triton.jit
def shifted(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in range(0, n):
        offs = offs + 1  # still `tl.arange(0, B)` plus scalars: carried as its start, `start + 1`
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))

# CHECK-LABEL: tile.func @shifted
# CHECK:       %offs_start = scf.for %i = {{.*}} iter_args(%offs_start_1 = %{{.*}}) -> (i32)
# CHECK:         %[[NEXT:.*]] = tile.add %{{.*}}, %offs_start_1 : i32, i32 -> i32
# CHECK-NEXT:    scf.yield %[[NEXT]] : i32


@triton.jit
def doubled(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in range(0, n):
        offs = offs * 2  # not `start + tl.arange(0, B)`: carried whole
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))

# CHECK-LABEL: tile.func @doubled
# CHECK:       scf.for %i = {{.*}} iter_args(%offs_2 = %offs) -> (!tile.block<?xi32>)
