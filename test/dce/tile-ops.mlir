// xDSL's dce on tile IR: an unused pure tile op is erased; an op with memory
// effects (store, atomic, load) stays even when its result is unused.
// RUN: overlap-opt %s -p dce | filecheck %s
// RUN: not overlap-opt %s -p 'dce{aggressive=true}' 2>&1 | filecheck %s --check-prefix=OPTION

// CHECK-LABEL: tile.func @unused
tile.func @unused(%p: !tile.ptr) {
  %c16 = arith.constant 16 : i32
  %pid = tile.program_id 0 : i32
  %dead = tile.mul %pid, %c16 : i32, i32 -> i32
  %deader = tile.add %dead, %c16 : i32, i32 -> i32
  %q = tile.addptr %p, %pid : !tile.ptr, i32 -> !tile.ptr
  %x = tile.load %q : !tile.ptr -> f32
  tile.store %x, %q : f32, !tile.ptr
  tile.return
}
// CHECK-NEXT:  %pid = tile.program_id 0 : i32
// CHECK-NEXT:  %q = tile.addptr %p, %pid : !tile.ptr, i32 -> !tile.ptr
// CHECK-NEXT:  %x = tile.load %q : !tile.ptr -> f32
// CHECK-NEXT:  tile.store %x, %q : f32, !tile.ptr
// CHECK-NEXT:  tile.return

// An atomic's result is often unused (a signal); the atomic is the point.
// CHECK-LABEL: tile.func @effects
tile.func @effects(%p: !tile.ptr) {
  %c1 = arith.constant 1 : i32
  %old = tile.atomic_rmw "add" %p, %c1 {sem = "release", scope = "sys"} : !tile.ptr, i32 -> i32
  %seen = tile.atomic_cas %p, %c1, %c1 {sem = "acquire", scope = "sys"} : !tile.ptr, i32, i32 -> i32
  %x = tile.load %p : !tile.ptr -> f32
  tile.return
}
// CHECK-NEXT:  %c1 = arith.constant 1 : i32
// CHECK-NEXT:  %old = tile.atomic_rmw "add" %p, %c1
// CHECK-NEXT:  %seen = tile.atomic_cas %p, %c1, %c1
// CHECK-NEXT:  %x = tile.load %p : !tile.ptr -> f32
// CHECK-NEXT:  tile.return

// A function with nothing to erase is unchanged.
// CHECK-LABEL: tile.func @empty
tile.func @empty() {
  tile.return
}
// CHECK-NEXT:  tile.return

// OPTION: overlap-opt: error: pipeline 'dce{aggressive=true}': Provided arguments ["aggressive"] not found in expected arguments []
