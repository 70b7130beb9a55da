// RUN: overlap-opt %s -t triton -o %t.py
// RUN: filecheck %s --input-file %t.py
// RUN: %python %S/inputs/parses.py < %t.py | filecheck %s --check-prefix=PARSE
// RUN: not overlap-opt %S/inputs/loop-unknown-option.mlir -t triton 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not overlap-opt %S/inputs/loop-option-on-range.mlir -t triton 2>&1 | filecheck %s --check-prefix=RANGE

// Every Triton 3.6 tl.range option becomes a keyword, in attribute order, a
// constexpr parameter by name; attributes outside the tile namespace (a
// pass's own tags) are not loop options and leave the loop unchanged.
builtin.module {
  tile.func @loops(%out_ptr: !tile.ptr, %n: !tile.scalar, %S: !tile.constexpr) attributes {param_names = ["out_ptr", "n", "S"], decorators = ["triton.jit"]} {
    %0 = arith.constant 0 : i32
    %1 = arith.constant 0 : i32
    %2 = arith.constant 2 : i32
    %3 = tile.retype %n : !tile.scalar -> i32
    %total = scf.for %j = %1 to %3 step %2 iter_args(%total_1 = %0) -> (i32) : i32 {
      %total_2 = tile.add %total_1, %j : i32, i32 -> i32
      scf.yield %total_2 : i32
    } {tile.loop = "range", tile.num_stages = @S, tile.loop_unroll_factor = 2 : i64, tile.flatten = true, tile.warp_specialize = false, tile.disallow_acc_multi_buffer = true, tile.disable_licm = true, chunk.note = "a pass's tag"}
    %sum = scf.for %k = %1 to %3 step %2 iter_args(%s_1 = %total) -> (i32) : i32 {
      %s_2 = tile.add %s_1, %k : i32, i32 -> i32
      scf.yield %s_2 : i32
    } {chunk.tile_loop = 4 : i64}
    tile.store %sum, %out_ptr : i32, !tile.ptr
    tile.return
  }
}

// CHECK-LABEL: def loops(out_ptr, n, S: tl.constexpr):
// CHECK:       for j in tl.range(0, n, 2, num_stages=S, loop_unroll_factor=2, flatten=True, warp_specialize=False, disallow_acc_multi_buffer=True, disable_licm=True):
// CHECK:       for k in range(0, n, 2):

// UNKNOWN: loops: loop attribute 'tile.prefetch' is not a tl.range option (known: num_stages, loop_unroll_factor, disallow_acc_multi_buffer, flatten, warp_specialize, disable_licm)
// UNKNOWN-NOT: Traceback

// RANGE: loops: loop option 'num_stages' needs tl.range, but the loop is range
// RANGE-NOT: Traceback

// The emitted file is Python (ast.parse).
// PARSE: parses: loops{{$}}
