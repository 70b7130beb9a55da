// Values are defined before they are used, calls of jit functions name a
// function of the module with its arity, masks are i1. xDSL's parser accepts
// a use before the definition in the same block (it is a forward reference)
// and a cycle; a use of a value from a region that does not enclose it is a
// parse error of xDSL's own and not repeated here.
// RUN: overlap-opt %s --split-input-file --verify-diagnostics | filecheck %s

tile.func @k(%p: !tile.ptr) {
  %a = tile.add %b, %b : i32, i32 -> i32
  %b = arith.constant 1 : i32
  tile.return
}
// CHECK: Operation does not verify: tile.func @k: tile.add uses %b before its definition

// -----

tile.func @k(%p: !tile.ptr) {
  %a = tile.add %b, %b : i32, i32 -> i32
  %b = tile.mul %a, %a : i32, i32 -> i32
  tile.store %b, %p : i32, !tile.ptr
  tile.return
}
// CHECK: Operation does not verify: tile.func @k: tile.add uses %b, whose definition depends on tile.add's own result (a cycle)

// -----

// The loop body reads a value defined after the loop, in the enclosing block.
tile.func @k(%p: !tile.ptr) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %c1 step %c1 : i32 {
    tile.store %late, %p : i32, !tile.ptr
    scf.yield
  }
  %late = arith.constant 7 : i32
  tile.return
}
// CHECK: Operation does not verify: tile.func @k: tile.store uses %late before its definition

// -----

// A loop bound computed from the loop's own result.
tile.func @k(%p: !tile.ptr) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = tile.add %r, %c1 : i32, i32 -> i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    scf.yield %acc : i32
  }
  tile.return
}
// CHECK: Operation does not verify: tile.func @k: tile.add uses %r, whose definition depends on tile.add's own result (a cycle)

// -----

builtin.module {
  tile.func @k(%x: i32) {
    %0 = tile.call_jit @missing(%x) : (i32) -> !tile.any
    tile.return
  }
}
// CHECK: Operation does not verify: tile.call_jit: the module has no function @missing

// -----

builtin.module {
  tile.func @helper(%a: !tile.any, %b: !tile.any) -> !tile.any {
    tile.return %a : !tile.any
  }
  tile.func @k(%x: i32) {
    %0 = tile.call_jit @helper(%x) : (i32) -> !tile.any
    tile.return
  }
}
// CHECK: Operation does not verify: tile.call_jit: @helper takes 2 argument(s), 1 given

// -----

builtin.module {
  tile.func @helper(%a: !tile.any) -> !tile.any {
    tile.return %a : !tile.any
  }
  tile.func @k(%x: i32) {
    %0, %1 = tile.call_jit @helper(%x) : (i32) -> (!tile.any, !tile.any)
    tile.return
  }
}
// CHECK: Operation does not verify: tile.call_jit: @helper returns 1 value(s), the call has 2 result(s)

// -----

tile.func @k(%p: !tile.block<?x!tile.ptr>, %m: !tile.block<?xf32>) {
  %0 = tile.load %p mask %m : !tile.block<?xf32> : !tile.block<?x!tile.ptr> -> !tile.block<?xf32>
  tile.return
}
// CHECK: Operation does not verify: tile.load: the mask must be i1 or a block of i1, got !tile.block<?xf32>

// -----

tile.func @k(%p: !tile.ptr, %m: i32) {
  %c = arith.constant 1 : i32
  tile.store %c, %p mask %m : i32 : i32, !tile.ptr
  tile.return
}
// CHECK: Operation does not verify: tile.store: the mask must be i1 or a block of i1, got i32

// -----

tile.func @k(%p: !tile.ptr, %q: !tile.ptr) {
  %c = arith.constant 1 : i32
  %0 = tile.atomic_rmw "add" %p, %c mask %q : !tile.ptr : !tile.ptr, i32 -> i32
  tile.return
}
// CHECK: Operation does not verify: tile.atomic_rmw: the mask must be i1 or a block of i1, got !tile.ptr

// -----

// xDSL's scf.while verifier raises a plain exception: still one error.
tile.func @k(%p: !tile.ptr) {
  %c0 = arith.constant 0 : i32
  %r = scf.while (%x = %c0) : (i32) -> (i32) {
    %t = arith.constant true
    scf.condition(%t) %x : i32
  } do {
  ^bb0(%y: f32):
    scf.yield %c0 : i32
  }
  tile.return
}
// CHECK: scf.while: Block arguments with wrong type, expected i32, got f32

// -----

// tile.undef stands for a name one arm of a constexpr `if` leaves unbound: only a yield may use it.
tile.func @k(%p: !tile.ptr) {
  %u = tile.undef : i32
  %a = tile.add %u, %u : i32, i32 -> i32
  tile.store %a, %p : i32, !tile.ptr
  tile.return
}
// CHECK: tile.undef: only an scf.yield may use it, not tile.add
