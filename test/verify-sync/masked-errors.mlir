// A wait cut one row below the load's mask bound (`rows < M`, waited up to
// M - 1) leaves row M - 1 unwaited: verify-sync refuses it, naming the line.
// RUN: not overlap-opt %s -p verify-sync 2>&1 | filecheck %s
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %M: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "M", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %rows = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %rows : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %mask = tile.cmp "lt", %rows, %M : !tile.block<?xi32>, !tile.scalar -> !tile.block<?xi1>
    %end = tile.add %lo, %BLOCK : i32, !tile.constexpr -> !tile.any
    %one = arith.constant 1 : i32
    %short = tile.sub %M, %one : !tile.scalar, i32 -> !tile.any
    %cut = tile.call "tl.minimum"(%end, %short) : (!tile.any, !tile.any) -> !tile.any
    %size = tile.sub %cut, %lo : !tile.any, i32 -> !tile.any
    chunk.wait_span %lo, %size plan @ag tensor "x_ptr" : i32, !tile.any
    %x = tile.load %ptrs mask %mask : !tile.block<?xi1> : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":9:5)
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

// CHECK: overlap-opt: error: verify-sync: copy.py:9: 'tile.load' reads [BLOCK*pid0, BLOCK*pid0 + BLOCK) along dim 0 of 'x_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: [BLOCK*pid0, Min(M - 1, BLOCK*pid0 + BLOCK)))
