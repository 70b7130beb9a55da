// A load of a gathered tensor with its wait deleted: refused, naming the
// load's source line and the rows it reads. With waits=false (the pipeline's
// negative control) the reads are not checked.
// RUN: not overlap-opt %s -p verify-sync 2>&1 | filecheck %s
// RUN: overlap-opt %s -p 'verify-sync{waits=false}' | filecheck %s --check-prefix=OFF

builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %x = tile.load %ptrs : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":9:5)
    %out = tile.addptr %y_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    tile.store %x, %out : !tile.any, !tile.block<?x!tile.ptr>
    tile.return
  }
  chunk.plan @ag kind "all-gather" world 2 {
    chunk.tensor "x_ptr" -> "x_ptr" shape ["M"] strides [1]
    chunk.chunk id 0 "x_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "x_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "x_ptr" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend unset
    chunk.chunk id 3 "x_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0 backend unset
  }
}

// CHECK: overlap-opt: error: verify-sync: copy.py:9: 'tile.load' reads [BLOCK*pid0, BLOCK*pid0 + BLOCK) along dim 0 of 'x_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: none)
// OFF:   %x = tile.load %ptrs
