// Writes of a reduce-scattered tensor that verify-sync refuses, one per
// chunk: each store must be followed, on every path to the end of the tile,
// by exactly one chunk.signal_span of exactly its rows, and each signal must
// run once per tile after a store of its rows. With signals=false (the
// pipeline's negative control) nothing is checked.
// RUN: overlap-opt %s -p verify-sync --split-input-file --verify-diagnostics | filecheck %s
// RUN: overlap-opt %s -p 'verify-sync{signals=false}' --split-input-file | filecheck %s --check-prefix=OFF
// OFF-COUNT-7: chunk.plan @rs

// A store in each arm of an if, the signal only in the then arm: the else path ends unsignalled.
builtin.module {
  tile.func @store(%c_ptr: !tile.ptr, %v: !tile.any, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["c_ptr", "v", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %c_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %c = tile.retype %flag : !tile.scalar -> i1
    scf.if %c {
      tile.store %v, %ptrs : !tile.any, !tile.block<?x!tile.ptr> loc("rs.py":10:7)
      chunk.signal_span %lo, %BLOCK plan @rs tensor "c_ptr" : i32, !tile.constexpr
      scf.yield
    } else {
      tile.store %v, %ptrs : !tile.any, !tile.block<?x!tile.ptr> loc("rs.py":12:7)
      scf.yield
    }
    tile.return
  }
  chunk.plan @rs kind "reduce-scatter" world 2 {
    chunk.tensor "c_ptr" -> "c_ptr" shape ["M"] strides [1]
    chunk.chunk id 0 "c_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "c_ptr" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend unset
    chunk.chunk id 3 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend unset
  }
}

// CHECK: verify-sync: rs.py:12: 'tile.store' writes [BLOCK*pid0, BLOCK*pid0 + BLOCK) along dim 0 of 'c_ptr' (plan @rs), but no chunk.signal_span of exactly that range follows it on every path to the end of the tile (signals after it: none)

// -----

// A store before the if, the signal in one arm of it.
builtin.module {
  tile.func @store(%c_ptr: !tile.ptr, %v: !tile.any, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["c_ptr", "v", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %c_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %c = tile.retype %flag : !tile.scalar -> i1
    tile.store %v, %ptrs : !tile.any, !tile.block<?x!tile.ptr> loc("rs.py":9:5)
    scf.if %c {
      chunk.signal_span %lo, %BLOCK plan @rs tensor "c_ptr" : i32, !tile.constexpr
      scf.yield
    } else {
      scf.yield
    }
    tile.return
  }
  chunk.plan @rs kind "reduce-scatter" world 2 {
    chunk.tensor "c_ptr" -> "c_ptr" shape ["M"] strides [1]
    chunk.chunk id 0 "c_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "c_ptr" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend unset
    chunk.chunk id 3 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend unset
  }
}

// CHECK: verify-sync: rs.py:9: 'tile.store' writes [BLOCK*pid0, BLOCK*pid0 + BLOCK) along dim 0 of 'c_ptr' (plan @rs), but no chunk.signal_span of exactly that range follows it on every path to the end of the tile (signals after it: none)

// -----

// The signal before the store it announces.
builtin.module {
  tile.func @store(%c_ptr: !tile.ptr, %v: !tile.any, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["c_ptr", "v", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %c_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %c = tile.retype %flag : !tile.scalar -> i1
    chunk.signal_span %lo, %BLOCK plan @rs tensor "c_ptr" : i32, !tile.constexpr
    tile.store %v, %ptrs : !tile.any, !tile.block<?x!tile.ptr> loc("rs.py":10:5)
    tile.return
  }
  chunk.plan @rs kind "reduce-scatter" world 2 {
    chunk.tensor "c_ptr" -> "c_ptr" shape ["M"] strides [1]
    chunk.chunk id 0 "c_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "c_ptr" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend unset
    chunk.chunk id 3 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend unset
  }
}

// CHECK: verify-sync: rs.py:10: 'tile.store' writes [BLOCK*pid0, BLOCK*pid0 + BLOCK) along dim 0 of 'c_ptr' (plan @rs), but no chunk.signal_span of exactly that range follows it on every path to the end of the tile (signals after it: none)

// -----

// A signal of twice the rows: it would count the tile for a chunk it did not write.
builtin.module {
  tile.func @store(%c_ptr: !tile.ptr, %v: !tile.any, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["c_ptr", "v", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %c_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %c = tile.retype %flag : !tile.scalar -> i1
    tile.store %v, %ptrs : !tile.any, !tile.block<?x!tile.ptr> loc("rs.py":9:5)
    %two = arith.constant 2 : i32
    %wide = tile.mul %BLOCK, %two : !tile.constexpr, i32 -> i32
    chunk.signal_span %lo, %wide plan @rs tensor "c_ptr" : i32, i32
    tile.return
  }
  chunk.plan @rs kind "reduce-scatter" world 2 {
    chunk.tensor "c_ptr" -> "c_ptr" shape ["M"] strides [1]
    chunk.chunk id 0 "c_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "c_ptr" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend unset
    chunk.chunk id 3 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend unset
  }
}

// CHECK: verify-sync: rs.py:9: 'tile.store' writes [BLOCK*pid0, BLOCK*pid0 + BLOCK) along dim 0 of 'c_ptr' (plan @rs), but no chunk.signal_span of exactly that range follows it on every path to the end of the tile (signals after it: [BLOCK*pid0, BLOCK*pid0 + 2*BLOCK))

// -----

// Two signals of the store's rows.
builtin.module {
  tile.func @store(%c_ptr: !tile.ptr, %v: !tile.any, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["c_ptr", "v", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %c_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %c = tile.retype %flag : !tile.scalar -> i1
    tile.store %v, %ptrs : !tile.any, !tile.block<?x!tile.ptr> loc("rs.py":9:5)
    chunk.signal_span %lo, %BLOCK plan @rs tensor "c_ptr" : i32, !tile.constexpr
    chunk.signal_span %lo, %BLOCK plan @rs tensor "c_ptr" : i32, !tile.constexpr
    tile.return
  }
  chunk.plan @rs kind "reduce-scatter" world 2 {
    chunk.tensor "c_ptr" -> "c_ptr" shape ["M"] strides [1]
    chunk.chunk id 0 "c_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "c_ptr" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend unset
    chunk.chunk id 3 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend unset
  }
}

// CHECK: verify-sync: rs.py:9: 'tile.store' writes [BLOCK*pid0, BLOCK*pid0 + BLOCK) along dim 0 of 'c_ptr' (plan @rs), and 2 chunk.signal_span of that range follow it: the runtime would count the tile 2 times

// -----

// A signal in a loop counts the tile once per iteration.
builtin.module {
  tile.func @store(%c_ptr: !tile.ptr, %v: !tile.any, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["c_ptr", "v", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %c_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %c = tile.retype %flag : !tile.scalar -> i1
    %ub = tile.retype %M : !tile.scalar -> i32
    %one = arith.constant 1 : i32
    scf.for %i = %zero to %ub step %one : i32 {
      tile.store %v, %ptrs : !tile.any, !tile.block<?x!tile.ptr> loc("rs.py":11:7)
      chunk.signal_span %lo, %BLOCK plan @rs tensor "c_ptr" : i32, !tile.constexpr
      scf.yield
    } loc("rs.py":10:5)
    tile.return
  }
  chunk.plan @rs kind "reduce-scatter" world 2 {
    chunk.tensor "c_ptr" -> "c_ptr" shape ["M"] strides [1]
    chunk.chunk id 0 "c_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "c_ptr" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend unset
    chunk.chunk id 3 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend unset
  }
}

// CHECK: verify-sync: rs.py:11: 'tile.store': the chunk.signal_span after it (of 'c_ptr', plan @rs) is inside a loop (rs.py:10: 'scf.for'), so it counts the tile once per iteration

// -----

// A signal of rows no store before it wrote.
builtin.module {
  tile.func @store(%c_ptr: !tile.ptr, %v: !tile.any, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["c_ptr", "v", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %c_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %c = tile.retype %flag : !tile.scalar -> i1
    tile.store %v, %ptrs : !tile.any, !tile.block<?x!tile.ptr> loc("rs.py":9:5)
    chunk.signal_span %lo, %BLOCK plan @rs tensor "c_ptr" : i32, !tile.constexpr
    %one = arith.constant 1 : i32
    %next = tile.add %pid, %one : i32, i32 -> i32
    %other = tile.mul %next, %BLOCK : i32, !tile.constexpr -> i32
    chunk.signal_span %other, %BLOCK plan @rs tensor "c_ptr" : i32, !tile.constexpr
    tile.return
  }
  chunk.plan @rs kind "reduce-scatter" world 2 {
    chunk.tensor "c_ptr" -> "c_ptr" shape ["M"] strides [1]
    chunk.chunk id 0 "c_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "c_ptr" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend unset
    chunk.chunk id 3 "c_ptr" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend unset
  }
}

// CHECK: verify-sync: rs.py:9: 'tile.store': the chunk.signal_span after it (of 'c_ptr', plan @rs) signals [BLOCK*pid0 + BLOCK, BLOCK*pid0 + 2*BLOCK), but no store of that range precedes it on every path: it counts a tile that wrote nothing there (stores: rs.py:9: 'tile.store' [BLOCK*pid0, BLOCK*pid0 + BLOCK))
