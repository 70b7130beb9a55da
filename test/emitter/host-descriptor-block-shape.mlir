// RUN: overlap-opt %s -t triton -o %t.py
// RUN: filecheck %s --input-file %t.py
// RUN: %python %S/inputs/parses.py < %t.py | filecheck %s --check-prefix=PARSE

// A host descriptor's block size is written where it is used, however often
// (Triton reads it as a constexpr); a wait's bound keeps it inline.
builtin.module {
  tile.func @waits_on_block(%a_desc: !tile.desc<2>, %out_ptr: !tile.ptr) attributes {decorators = ["triton.jit"]} {
    %0 = tile.desc_block_size %a_desc[0 : i64] : !tile.desc<2>
    %zero = arith.constant 0 : i32
    %pid = tile.program_id 0 : i32
    %off = tile.mul %pid, %0 : i32, !tile.constexpr -> i32
    %hi = tile.add %off, %0 : i32, !tile.constexpr -> i32
    %blk = tile.desc_load %a_desc[%off, %zero] : !tile.desc<2>, i32, i32 -> !tile.any
    %p = tile.addptr %out_ptr, %hi : !tile.ptr, i32 -> !tile.ptr
    tile.store %blk, %p : !tile.any, !tile.ptr
    tile.return
  }
}

// CHECK-LABEL: def waits_on_block(a_desc, out_ptr):
// CHECK-NEXT:    pid = tl.program_id(axis=0)
// CHECK-NEXT:    off = pid * a_desc.block_shape[0]
// CHECK-NEXT:    hi = off + a_desc.block_shape[0]
// CHECK-NEXT:    blk = a_desc.load([off, 0])
// CHECK-NEXT:    p = out_ptr + hi
// CHECK-NEXT:    tl.store(p, blk)
// PARSE: parses: waits_on_block
