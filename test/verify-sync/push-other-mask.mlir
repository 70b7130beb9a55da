// verify-sync refuses a push whose store stores under another mask than it pushes (push.mlir is the good push).
// RUN: not overlap-opt %s -p verify-sync 2>&1 | filecheck %s
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %c_ptr: !tile.ptr, %M: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "c_ptr", "M", "BLOCK"], decorators = ["triton.jit"]} {
    %0 = tile.program_id 0 : i32
    %1 = tile.mul %0, %BLOCK : i32, !tile.constexpr -> i32
    %2 = arith.constant 0 : i32
    %3 = tile.arange %2, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %rows = tile.add %1, %3 : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %4 = tile.addptr %c_ptr, %rows : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %5 = tile.addptr %x_ptr, %rows : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %6 = tile.cmp "lt", %rows, %M : !tile.block<?xi32>, !tile.scalar -> !tile.block<?xi1>
    %7 = tile.load %5 mask %6 : !tile.block<?xi1> : !tile.block<?x!tile.ptr> -> !tile.any
    %8 = tile.cmp "lt", %rows, %M : !tile.block<?xi32>, !tile.scalar -> !tile.block<?xi1>
    %9 = chunk.push_reduce %7 at %4 mask %8 : !tile.block<?xi1> plan @ar tensor "c_ptr" {tile.origin = "push-all-reduce"} : !tile.any, !tile.block<?x!tile.ptr> -> !tile.any
    tile.store %9, %4 mask %6 : !tile.block<?xi1> {chunk.access = {plan = @ar, tensor = "c_ptr", dim = 0 : i64, role = "write", lo = "(pid0 * BLOCK)", extent = "BLOCK", loops = 0 : i64, invariant = 0 : i64}} : !tile.any, !tile.block<?x!tile.ptr>
    chunk.signal_span %1, %BLOCK plan @ar tensor "c_ptr" {tile.origin = "insert-signals"} : i32, !tile.constexpr
    tile.return
  }
  chunk.plan @ar kind "all-reduce" world 2 {
    chunk.tensor "c_ptr" -> "c_ptr" shape ["M", "D1"] strides [1, "stride_c_ptr_1"]
    chunk.chunk id 0 "c_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend unset
    chunk.chunk id 3 "c_ptr" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend unset
    chunk.chunk id 4 "c_ptr" dim 0 offset 0 size "M/2" src 0 dst 1 step 1 backend unset
    chunk.chunk id 5 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 1 backend unset
  }
}

// CHECK: verify-sync: 'chunk.push_reduce' (op #11 of @copy) (plan @ar, 'c_ptr') pushes through other pointers or another mask than 'tile.store' (op #12 of @copy) stores through
