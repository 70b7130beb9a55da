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

// -----

// A row loaded from memory through a scalar pointer (an embedding lookup) is
// one value: the wait and the load that use the same SSA value agree on it.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %idx_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "idx_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %one = arith.constant 1 : i32
    %i = tile.load %idx_ptr : !tile.ptr -> !tile.any
    %at = tile.addptr %x_ptr, %i : !tile.ptr, !tile.any -> !tile.ptr
    chunk.wait_span %i, %one plan @ag tensor "x_ptr" : !tile.any, i32
    %x = tile.load %at : !tile.ptr -> !tile.any loc("copy.py":9:5)
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

// Edge: the block index is an scf.while loop variable (a grid-stride loop) and
// a scalar scf.if result picks the tile's first row; each is one value per
// iteration, the same at the wait and at the masked load after it.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %idx_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "idx_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %step = tile.num_programs 0 : i32
    %n = tile.cdiv %M, %BLOCK : !tile.scalar, !tile.constexpr -> !tile.scalar
    %zero = arith.constant 0 : i32
    %last = scf.while (%b = %pid) : (i32) -> i32 {
      %more = tile.cmp "lt", %b, %n : i32, !tile.scalar -> i1
      scf.condition(%more) %b : i32
    } do {
    ^bb0(%b2: i32):
      %even = tile.cmp "lt", %b2, %M : i32, !tile.scalar -> i1
      %lo = scf.if %even -> (i32) {
        %l1 = tile.mul %b2, %BLOCK : i32, !tile.constexpr -> i32
        scf.yield %l1 : i32
      } else {
        scf.yield %zero : i32
      }
      %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
      %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
      %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
      %mask = tile.cmp "lt", %offs, %M : !tile.block<?xi32>, !tile.scalar -> !tile.block<?xi1>
      %end = tile.add %lo, %BLOCK : i32, !tile.constexpr -> !tile.any
      %hi = tile.call "tl.minimum"(%end, %M) : (!tile.any, !tile.scalar) -> !tile.any
      %extent = tile.sub %hi, %lo : !tile.any, i32 -> !tile.any
      chunk.wait_span %lo, %extent plan @ag tensor "x_ptr" : i32, !tile.any
      %x = tile.load %ptrs mask %mask : !tile.block<?xi1> : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":9:5)
      %next = tile.add %b2, %step : i32, i32 -> i32
      scf.yield %next : i32
    }
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

// Edge: a 2-D tile whose mask `rows_ok & (cols < N)` has a conjunct the model
// cannot read (a loaded flag); `cols < N` alone still keeps the columns in the
// row, since `&` is non-zero only where `cols < N` holds.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %N: !tile.scalar, %stride: !tile.scalar, %flag_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "N", "stride", "flag_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %cols = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %flag_ptrs = tile.addptr %flag_ptr, %cols : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %flags = tile.load %flag_ptrs : !tile.block<?x!tile.ptr> -> !tile.block<?xi1>
    %in_row = tile.cmp "lt", %cols, %N : !tile.block<?xi32>, !tile.scalar -> !tile.block<?xi1>
    %mask = tile.and %flags, %in_row : !tile.block<?xi1>, !tile.block<?xi1> -> !tile.block<?xi1>
    %row = tile.mul %pid, %stride : i32, !tile.scalar -> !tile.scalar
    %offs = tile.add %row, %cols : !tile.scalar, !tile.block<?xi32> -> !tile.block<?x!tile.scalar>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?x!tile.scalar> -> !tile.block<?x!tile.ptr>
    chunk.wait_span %pid, %one plan @ag tensor "x_ptr" : i32, i32
    %x = tile.load %ptrs mask %mask : !tile.block<?xi1> : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":9:5)
    tile.return
  }
  chunk.plan @ag kind "all-gather" world 2 {
    chunk.tensor "x_ptr" -> "x_ptr" shape ["M", "N"] strides ["stride", 1]
    chunk.chunk id 0 "x_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "x_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "x_ptr" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend unset
    chunk.chunk id 3 "x_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0 backend unset
  }
}

// CHECK: tile.func @copy
