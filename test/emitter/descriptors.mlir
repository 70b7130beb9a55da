// RUN: overlap-opt %s -t triton -o %t.py
// RUN: filecheck %s --input-file %t.py
// RUN: %python %S/inputs/parses.py < %t.py | filecheck %s --check-prefix=PARSE

builtin.module {
  tile.func @desc_copy(%a_ptr: !tile.ptr, %c_ptr: !tile.ptr, %M: !tile.scalar, %N: !tile.scalar, %BM: !tile.constexpr, %BN: !tile.constexpr) attributes {decorators = ["triton.jit"]} {
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %a_desc = tile.make_tensor_descriptor %a_ptr shape [%M, %N] strides [%N, %one] block [%BM, %BN] : !tile.ptr, (!tile.scalar, !tile.scalar), (!tile.scalar, i32), (!tile.constexpr, !tile.constexpr) -> !tile.desc<2>
    %c_desc = tile.make_tensor_descriptor %c_ptr shape [%M, %N] strides [%N, %one] block [%BM, %BN] : !tile.ptr, (!tile.scalar, !tile.scalar), (!tile.scalar, i32), (!tile.constexpr, !tile.constexpr) -> !tile.desc<2>
    %pid = tile.program_id 0 : i32
    %off = tile.mul %pid, %BM : i32, !tile.constexpr -> i32
    %blk = tile.desc_load %a_desc[%off, %zero] : !tile.desc<2>, i32, i32 -> !tile.any
    tile.desc_store %blk, %c_desc[%off, %zero] : !tile.any, !tile.desc<2>, i32, i32
    tile.desc_atomic "add" %blk, %c_desc[%off, %zero] : !tile.any, !tile.desc<2>, i32, i32
    %old = tile.atomic_rmw "add" %a_ptr, %one {sem = "acq_rel", scope = "gpu"} : !tile.ptr, i32 -> !tile.any
    %cas = tile.atomic_cas %c_ptr, %zero, %one {sem = "acquire"} : !tile.ptr, i32, i32 -> !tile.any
    tile.return
  }
}

// CHECK-LABEL: def desc_copy(a_ptr, c_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
// CHECK-NEXT:  a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
// CHECK-NEXT:  c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
// CHECK-NEXT:  pid = tl.program_id(axis=0)
// CHECK-NEXT:  off = pid * BM
// CHECK-NEXT:  blk = a_desc.load([off, 0])
// CHECK-NEXT:  c_desc.store([off, 0], blk)
// CHECK-NEXT:  c_desc.atomic_add([off, 0], blk)
// CHECK-NEXT:  old = tl.atomic_add(a_ptr, 1, sem='acq_rel', scope='gpu')
// CHECK-NEXT:  cas = tl.atomic_cas(c_ptr, 0, 1, sem='acquire')

// The emitted file is Python (ast.parse).
// PARSE: parses: desc_copy{{$}}
