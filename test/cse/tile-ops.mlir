// xDSL's cse on tile IR: identical pure tile ops merge; loads, stores and
// atomics (memory effects) never do, so no read moves past a wait.
// RUN: overlap-opt %s -p cse | filecheck %s
// RUN: not overlap-opt %s -p 'cse{depth=1}' 2>&1 | filecheck %s --check-prefix=OPTION

// CHECK-LABEL: tile.func @pure
tile.func @pure(%p: !tile.ptr) {
  %c16 = arith.constant 16 : i32
  %c16b = arith.constant 16 : i32
  %pid = tile.program_id 0 : i32
  %a = tile.add %pid, %c16 : i32, i32 -> i32
  %b = tile.add %pid, %c16b : i32, i32 -> i32
  %q = tile.addptr %p, %a : !tile.ptr, i32 -> !tile.ptr
  %r = tile.addptr %p, %b : !tile.ptr, i32 -> !tile.ptr
  %x = tile.load %q : !tile.ptr -> f32
  tile.store %x, %r : f32, !tile.ptr
  tile.return
}
// CHECK-NEXT:  %c16 = arith.constant 16 : i32
// CHECK-NEXT:  %pid = tile.program_id 0 : i32
// CHECK-NEXT:  %a = tile.add %pid, %c16 : i32, i32 -> i32
// CHECK-NEXT:  %q = tile.addptr %p, %a : !tile.ptr, i32 -> !tile.ptr
// CHECK-NEXT:  %x = tile.load %q : !tile.ptr -> f32
// CHECK-NEXT:  tile.store %x, %q : f32, !tile.ptr
// CHECK-NEXT:  tile.return

// Two loads of one address may read different values (a peer wrote between
// them): both stay, as do both stores and both atomics.
// CHECK-LABEL: tile.func @effects
tile.func @effects(%p: !tile.ptr) {
  %c1 = arith.constant 1 : i32
  %x = tile.load %p : !tile.ptr -> f32
  %y = tile.load %p : !tile.ptr -> f32
  tile.store %x, %p : f32, !tile.ptr
  tile.store %y, %p : f32, !tile.ptr
  %o1 = tile.atomic_rmw "add" %p, %c1 {sem = "acq_rel", scope = "gpu"} : !tile.ptr, i32 -> i32
  %o2 = tile.atomic_rmw "add" %p, %c1 {sem = "acq_rel", scope = "gpu"} : !tile.ptr, i32 -> i32
  tile.return
}
// CHECK-COUNT-2: tile.load %p
// CHECK-COUNT-2: tile.store
// CHECK-COUNT-2: tile.atomic_rmw "add"
// CHECK-NEXT:  tile.return

// Different program axes are different values.
// CHECK-LABEL: tile.func @axes
tile.func @axes(%p: !tile.ptr) {
  %p0 = tile.program_id 0 : i32
  %p1 = tile.program_id 1 : i32
  %s = tile.add %p0, %p1 : i32, i32 -> i32
  %q = tile.addptr %p, %s : !tile.ptr, i32 -> !tile.ptr
  %x = tile.load %q : !tile.ptr -> f32
  tile.store %x, %q : f32, !tile.ptr
  tile.return
}
// CHECK-NEXT:  %p0 = tile.program_id 0 : i32
// CHECK-NEXT:  %p1 = tile.program_id 1 : i32

// OPTION: overlap-opt: error: pipeline 'cse{depth=1}': Provided arguments ["depth"] not found in expected arguments []
