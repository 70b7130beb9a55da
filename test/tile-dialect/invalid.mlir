// RUN: overlap-opt %s --split-input-file --verify-diagnostics | filecheck %s

tile.func @k() {
  %0 = tile.program_id 3 : i32
  tile.return
}
// CHECK:      tile.program_id: axis must be 0, 1 or 2, got 3
// CHECK:      %0 = "tile.program_id"() <{axis = 3 : i64}> : () -> i32
// CHECK-NEXT: ^^^^^^^^^^^^^^^^^^^^^^---
// CHECK-NEXT: | Operation does not verify: tile.program_id: axis must be 0, 1 or 2, got 3

// -----

tile.func @k() {
  %0 = tile.num_programs -1 : i32
  tile.return
}
// CHECK: tile.num_programs: axis must be 0, 1 or 2, got -1

// -----

tile.func @k(%p: !tile.ptr) {
  %c = arith.constant 1 : i32
  %0 = tile.atomic_rmw "add" %p, %c {sem = "seq_cst"} : !tile.ptr, i32 -> i32
  tile.return
}
// CHECK: tile.atomic_rmw: sem must be one of relaxed, acquire, release, acq_rel, got 'seq_cst'

// -----

tile.func @k(%p: !tile.ptr) {
  %c = arith.constant 1 : i32
  %0 = tile.atomic_rmw "add" %p, %c {scope = "device"} : !tile.ptr, i32 -> i32
  tile.return
}
// CHECK: tile.atomic_rmw: scope must be one of cta, gpu, sys, got 'device'

// -----

tile.func @k(%p: !tile.ptr) {
  %c = arith.constant 1 : i32
  %0 = tile.atomic_rmw "nand" %p, %c : !tile.ptr, i32 -> i32
  tile.return
}
// CHECK: tile.atomic_rmw: unknown kind 'nand'

// -----

tile.func @k(%p: !tile.ptr) {
  %c = arith.constant 1 : i32
  %0 = tile.atomic_cas %p, %c, %c {scope = "world"} : !tile.ptr, i32, i32 -> i32
  tile.return
}
// CHECK: tile.atomic_cas: scope must be one of cta, gpu, sys, got 'world'

// -----

tile.func @k(%d: !tile.desc<2>) {
  %c = arith.constant 0 : i32
  %0 = tile.desc_load %d[%c] : !tile.desc<2>, i32 -> !tile.any
  tile.return
}
// CHECK: tile.desc_load: 1 offsets for a rank-2 descriptor

// -----

tile.func @k(%d: !tile.desc<1>, %v: !tile.any) {
  %c = arith.constant 0 : i32
  tile.desc_store %v, %d[%c, %c] : !tile.any, !tile.desc<1>, i32, i32
  tile.return
}
// CHECK: tile.desc_store: 2 offsets for a rank-1 descriptor

// -----

tile.func @k(%d: !tile.desc<2>, %v: !tile.any) {
  %c = arith.constant 0 : i32
  tile.desc_atomic "xchg" %v, %d[%c, %c] : !tile.any, !tile.desc<2>, i32, i32
  tile.return
}
// CHECK: tile.desc_atomic: unknown kind 'xchg'

// -----

tile.func @k(%p: !tile.ptr, %n: !tile.scalar) {
  %0 = tile.make_tensor_descriptor %p shape [%n, %n] strides [%n] block [%n, %n] : !tile.ptr, (!tile.scalar, !tile.scalar), (!tile.scalar), (!tile.scalar, !tile.scalar) -> !tile.desc<2>
  tile.return
}
// CHECK: tile.make_tensor_descriptor: strides has 1 entries for a rank-2 descriptor

// -----

tile.func @k(%a: i32) {
  %0 = tile.cmp "ult", %a, %a : i32, i32 -> i1
  tile.return
}
// CHECK: tile.cmp: unknown predicate 'ult' (expected one of lt, le, gt, ge, eq, ne, is, isnot)

// -----

tile.func @k(%x: !tile.block<4xf32>) {
  %0 = tile.reduce "prod" %x : !tile.block<4xf32> -> f32
  tile.return
}
// CHECK: tile.reduce: unknown kind 'prod'

// -----

tile.func @k(%x: !tile.block<4x8xf32>) {
  %0 = tile.reduce "sum" %x {axis = 2 : i64} : !tile.block<4x8xf32> -> !tile.any
  tile.return
}
// CHECK: tile.reduce: axis 2 out of range for rank 2

// -----

tile.func @k(%x: !tile.block<4xf32>) {
  %0 = tile.expand_dims %x, 2 : i64 : !tile.block<4xf32> -> !tile.any
  tile.return
}
// CHECK: tile.expand_dims: axis 2 out of range for rank 1

// -----

tile.func @k(%x: !tile.block<4xf32>) {
  %0 = tile.expand_dims %x, 0 : i64 : !tile.block<4xf32> -> !tile.block<1x1x4xf32>
  tile.return
}
// CHECK: tile.expand_dims: result rank 3 must be source rank 1 + 1

// -----

tile.func @k(%x: !tile.block<4xf32>) {
  %0 = tile.trans %x : !tile.block<4xf32> -> !tile.any
  tile.return
}
// CHECK: tile.trans: operand must be a rank-2 block

// -----

tile.func @k(%n: !tile.constexpr) {
  %0 = tile.zeros [%n] {dtype = f32} : !tile.constexpr -> !tile.block<?x?xf32>
  tile.return
}
// CHECK: tile.zeros: 1 shape operands for a rank-2 result

// -----

tile.func @k(%a: i32) {
  %0 = tile.arange %a, %a : i32, i32 -> !tile.block<4x4xi32>
  tile.return
}
// CHECK: tile.arange must produce a rank-1 block

// -----

tile.func @k(%a: i32) {
  %0 = tile.load %a : i32 -> !tile.any
  tile.return
}
// CHECK: tile.load: expected a pointer operand, got i32

// -----

tile.func @k(%p: !tile.ptr) {
  %0 = tile.addptr %p, %p : !tile.ptr, !tile.ptr -> !tile.ptr
  tile.return
}
// CHECK: tile.addptr: the offset must not be a pointer

// -----

tile.func @k(%a: i32) {
  %0 = arith.constant 0 : i32
}
// xDSL's single-block check fires before tile.func's own "must end with
// tile.return" check.
// CHECK: Operation arith.constant terminates block in single-block region but is not a terminator

// -----

tile.func @k(%a: i32) -> i32 {
  tile.return
}
// CHECK: tile.func @k: tile.return types () differ from the declared results

// -----

tile.func @k(%a: i32) -> f32 {
  tile.return %a : i32
}
// CHECK: tile.func @k: tile.return types ({{.*}}32{{.*}}) differ from the declared results

// -----

builtin.module {
  tile.return
}
// CHECK: 'tile.return' expects parent op 'tile.func'

// -----

tile.func @k(%x: !tile.block<0x4xf32>) {
  tile.return
}
// CHECK: tile.block dims must be positive or '?', got 0

// -----

tile.func @k(%p: !tile.ptr, %q: !tile.ptr) {
  %0 = tile.cmp "isnot", %p, %q : !tile.ptr, !tile.ptr -> i1
  tile.return
}
// CHECK: tile.cmp "isnot": the right operand must be `tile.literal none`

// -----

tile.func @k(%d: !tile.desc<2>) {
  %0 = tile.desc_block_size %d[2 : i64] : !tile.desc<2>
  tile.return
}
// CHECK: tile.desc_block_size: dim 2 of a rank-2 descriptor
