// RUN: overlap-opt %s -t triton -o %t.py
// RUN: filecheck %s --input-file %t.py
// RUN: %python %S/inputs/parses.py < %t.py | filecheck %s --check-prefix=PARSE
// RUN: not overlap-opt %S/inputs/loop-unknown-kind.mlir -t triton 2>&1 | filecheck %s --check-prefix=KIND
// RUN: not overlap-opt %S/inputs/loop-option-no-param.mlir -t triton 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not overlap-opt %S/inputs/prelude-statement.mlir -t triton 2>&1 | filecheck %s --check-prefix=PRELUDE

// The emitter writes only Python identifiers as variable names: IR names may
// hold `.`, `-` and `$`, which would turn `%tl.x` into an assignment to an
// attribute of the tl module; names the emitted code itself uses (`range`,
// `float`, `tl`) are never reused for a variable. An attribute that becomes a
// comment stays on its line.
builtin.module {
  tile.func @k(%p: !tile.ptr, %n: !tile.scalar) {
    %c1 = arith.constant 1 : i32
    %tl.x = tile.add %c1, %c1 : i32, i32 -> i32
    %a-b = tile.add %tl.x, %c1 : i32, i32 -> i32
    %range = tile.add %a-b, %c1 : i32, i32 -> i32
    %float = tile.add %range, %c1 {tile.origin = "a pass\nimport os"} : i32, i32 -> i32
    %q = tile.addptr %p, %float : !tile.ptr, i32 -> !tile.ptr
    tile.store %float, %q : i32, !tile.ptr
    %m = tile.retype %n : !tile.scalar -> i32
    scf.for %i = %c1 to %m step %c1 : i32 {
      scf.yield
    }
    tile.return
  }
}

// CHECK-LABEL: def k(p, n):
// CHECK-NEXT:      tl_x = 1 + 1
// CHECK-NEXT:      a_b = tl_x + 1
// CHECK-NEXT:      range_1 = a_b + 1
// CHECK-NEXT:      # inserted by a pass import os
// CHECK-NEXT:      float_1 = range_1 + 1
// CHECK-NEXT:      q = p + float_1
// CHECK-NEXT:      tl.store(q, float_1)
// CHECK-NEXT:      for i in range(1, n):

// PARSE: parses: k{{$}}

// KIND: overlap-opt: error: k: loop attribute tile.loop = "os_range" is not one of range, static_range
// OPTION: overlap-opt: error: k: loop option 'num_stages' = @STAGES names no parameter of the kernel
// PRELUDE: overlap-opt: error: tile.prelude line 1: 'import os' imports 'os', which is not one of the Triton modules and names an emitted file may import
