// xDSL's canonicalize on tile IR: arith constants fold and dead pure ops go;
// tile ops keep their operands and order.
// RUN: overlap-opt %s -p canonicalize | filecheck %s
// RUN: not overlap-opt %s -p 'canonicalize{max-iterations=3}' 2>&1 | filecheck %s --check-prefix=OPTION

// CHECK-LABEL: tile.func @fold
tile.func @fold(%p: !tile.ptr) {
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %s = arith.addi %c8, %c16 : i32
  %pid = tile.program_id 0 : i32
  %z = arith.constant 0 : i32
  %a = arith.addi %pid, %z : i32
  %q = tile.addptr %p, %s : !tile.ptr, i32 -> !tile.ptr
  %r = tile.addptr %p, %a : !tile.ptr, i32 -> !tile.ptr
  %x = tile.load %q : !tile.ptr -> f32
  tile.store %x, %r : f32, !tile.ptr
  tile.return
}
// CHECK-NEXT:  %s = arith.constant 24 : i32
// CHECK-NEXT:  %pid = tile.program_id 0 : i32
// CHECK-NEXT:  %q = tile.addptr %p, %s : !tile.ptr, i32 -> !tile.ptr
// CHECK-NEXT:  %r = tile.addptr %p, %pid : !tile.ptr, i32 -> !tile.ptr
// CHECK-NEXT:  %x = tile.load %q : !tile.ptr -> f32
// CHECK-NEXT:  tile.store %x, %r : f32, !tile.ptr
// CHECK-NEXT:  tile.return

// A tile op of constants is not folded (it has no folder): it stays as written.
// CHECK-LABEL: tile.func @no_fold
tile.func @no_fold(%p: !tile.ptr) {
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %s = tile.add %c8, %c16 : i32, i32 -> i32
  %q = tile.addptr %p, %s : !tile.ptr, i32 -> !tile.ptr
  %x = tile.load %q : !tile.ptr -> f32
  tile.store %x, %q : f32, !tile.ptr
  tile.return
}
// CHECK-NEXT:  %c8 = arith.constant 8 : i32
// CHECK-NEXT:  %c16 = arith.constant 16 : i32
// CHECK-NEXT:  %s = tile.add %c8, %c16 : i32, i32 -> i32

// OPTION: overlap-opt: error: pipeline 'canonicalize{max-iterations=3}': Provided arguments ["max_iterations"] not found in expected arguments []
