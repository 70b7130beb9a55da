// A kernel that all-reduces by push (chunk.push_reduce) names its tiles by
// program id, which the SM backend's communication programs would shift: a
// module with both is refused, naming the cause and the fix.
// RUN: not overlap-opt %s -p lower-chunk-to-tile 2>&1 | filecheck %s
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
    chunk.wait_span %1, %BLOCK plan @ag tensor "x_ptr" : i32, !tile.constexpr
    %7 = tile.load %5 mask %6 : !tile.block<?xi1> : !tile.block<?x!tile.ptr> -> !tile.any
    %8 = chunk.push_reduce %7 at %4 mask %6 : !tile.block<?xi1> plan @ar tensor "c_ptr" : !tile.any, !tile.block<?x!tile.ptr> -> !tile.any
    tile.store %8, %4 mask %6 : !tile.block<?xi1> : !tile.any, !tile.block<?x!tile.ptr>
    tile.return
  }
  chunk.plan @ag kind "all-gather" world 2 {
    chunk.tensor "x_ptr" -> "x_ptr" shape ["M"] strides [1]
    chunk.chunk id 0 "x_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "x_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "x_ptr" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend sm
    chunk.chunk id 3 "x_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0 backend sm
  }
  chunk.plan @ar kind "all-reduce" world 2 {
    chunk.tensor "c_ptr" -> "c_ptr" shape ["M"] strides [1]
    chunk.chunk id 0 "c_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend ce
    chunk.chunk id 3 "c_ptr" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend ce
    chunk.chunk id 4 "c_ptr" dim 0 offset 0 size "M/2" src 0 dst 1 step 1 backend ce
    chunk.chunk id 5 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 1 backend ce
  }
}

// CHECK: lower-chunk-to-tile: a kernel that all-reduces by push (push-all-reduce) cannot also hold SM communication programs
// CHECK-SAME: (use backend=ce)
