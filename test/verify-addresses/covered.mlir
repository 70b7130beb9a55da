// verify-addresses on hand-written IR: accesses it proves covered pass, and
// strict=true passes too when every access is proved.
// RUN: overlap-opt %s -p 'verify-addresses{strict=true}' --split-input-file | filecheck %s

// The wait covers the tile's rows exactly: proved.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %idx_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "idx_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %one = arith.constant 1 : i32
    chunk.wait_span %lo, %BLOCK plan @ag tensor "x_ptr" : i32, !tile.constexpr
    %x = tile.load %ptrs : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":9:5)
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

// CHECK: tile.func @copy

// -----

// Edge: the mask `offs < M` clamps the rows; a wait of [lo, min(lo + BLOCK, M)) covers them.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %idx_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "idx_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %one = arith.constant 1 : i32
    %end = tile.add %lo, %BLOCK : i32, !tile.constexpr -> i32
    %hi = tile.call "tl.minimum"(%end, %M) : (i32, !tile.scalar) -> i32
    %ext = tile.sub %hi, %lo : i32, i32 -> i32
    chunk.wait_span %lo, %ext plan @ag tensor "x_ptr" : i32, i32
    %in = tile.cmp "lt", %offs, %M : !tile.block<?xi32>, !tile.scalar -> !tile.block<?xi1>
    %x = tile.load %ptrs mask %in : !tile.block<?xi1> : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":9:5)
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

// CHECK: tile.func @copy

// -----

// Edge: two waits chained end to start cover the tile.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %idx_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "idx_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %half = tile.floordiv %BLOCK, %two : !tile.constexpr, i32 -> i32
    %mid = tile.add %lo, %half : i32, i32 -> i32
    %rest = tile.sub %BLOCK, %half : !tile.constexpr, i32 -> i32
    chunk.wait_span %lo, %half plan @ag tensor "x_ptr" : i32, i32
    chunk.wait_span %mid, %rest plan @ag tensor "x_ptr" : i32, i32
    %x = tile.load %ptrs : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":9:5)
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

// CHECK: tile.func @copy

// -----

// Edge: a wait of the whole tensor (from row 0, M rows) covers every row.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %idx_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "idx_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %one = arith.constant 1 : i32
    chunk.wait_span %zero, %M plan @ag tensor "x_ptr" : i32, !tile.scalar
    %x = tile.load %ptrs : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":9:5)
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

// CHECK: tile.func @copy
