// Accesses verify-addresses refuses, one per case, each naming the load's
// source line. Uncovered accesses fail by default; unproved and unbounded
// ones only with strict=true (the second RUN), and pass without it (third).
// RUN: overlap-opt %s -p verify-addresses --split-input-file --verify-diagnostics | filecheck %s --check-prefix=DEFAULT
// RUN: overlap-opt %s -p 'verify-addresses{strict=true}' --split-input-file --verify-diagnostics | filecheck %s

// The wait starts one row late: row BLOCK*pid0 is read and never waited for.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %idx_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "idx_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %one = arith.constant 1 : i32
    %late = tile.add %lo, %one : i32, i32 -> i32
    chunk.wait_span %late, %BLOCK plan @ag tensor "x_ptr" : i32, !tile.constexpr
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

// CHECK: verify-addresses: copy.py:9: 'tile.load' is uncovered: reads rows [BLOCK*pid0, BLOCK*pid0 + BLOCK) of 'x_ptr' (plan @ag); waits that dominate it: [BLOCK*pid0 + 1, BLOCK*pid0 + BLOCK + 1); row BLOCK*pid0 is outside all of them
// DEFAULT: verify-addresses: copy.py:9: 'tile.load' is uncovered: reads rows [BLOCK*pid0, BLOCK*pid0 + BLOCK) of 'x_ptr' (plan @ag); waits that dominate it: [BLOCK*pid0 + 1, BLOCK*pid0 + BLOCK + 1); row BLOCK*pid0 is outside all of them

// -----

// No wait at all.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %idx_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "idx_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %one = arith.constant 1 : i32
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

// CHECK: verify-addresses: copy.py:9: 'tile.load' is uncovered: reads rows [BLOCK*pid0, BLOCK*pid0 + BLOCK) of 'x_ptr' (plan @ag); waits that dominate it: none; row BLOCK*pid0 is outside all of them
// DEFAULT: verify-addresses: copy.py:9: 'tile.load' is uncovered: reads rows [BLOCK*pid0, BLOCK*pid0 + BLOCK) of 'x_ptr' (plan @ag); waits that dominate it: none; row BLOCK*pid0 is outside all of them

// -----

// The wait after the load dominates nothing.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %idx_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "idx_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %one = arith.constant 1 : i32
    %x = tile.load %ptrs : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":9:5)
    chunk.wait_span %lo, %BLOCK plan @ag tensor "x_ptr" : i32, !tile.constexpr
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

// CHECK: verify-addresses: copy.py:9: 'tile.load' is uncovered: {{.*}} waits that dominate it: none;
// DEFAULT: verify-addresses: copy.py:9: 'tile.load' is uncovered: {{.*}} waits that dominate it: none;

// -----

// Edge: a wait of half the tile. Its last row is read and not waited for, but
// BLOCK // 2 is opaque to the model, so it is only unproved: passes unless strict.
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
    chunk.wait_span %lo, %half plan @ag tensor "x_ptr" : i32, i32
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

// CHECK: verify-addresses: copy.py:9: 'tile.load' is unproved: reads rows [BLOCK*pid0, BLOCK*pid0 + BLOCK) of 'x_ptr' (plan @ag); waits that dominate it: [BLOCK*pid0, BLOCK*pid0 + TDiv(BLOCK, 2))
// DEFAULT: tile.func @copy

// -----

// A block of loaded indices (a gather): each lane reads its own row, which
// lies between the block's min and max; a wait of the program's own rows
// does not cover that (strict only).
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %idx_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "idx_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %one = arith.constant 1 : i32
    %idx_ptrs = tile.addptr %idx_ptr, %range : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %i = tile.load %idx_ptrs : !tile.block<?x!tile.ptr> -> !tile.block<?xi32> loc("copy.py":8:5)
    %at = tile.addptr %x_ptr, %i : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    chunk.wait_span %lo, %BLOCK plan @ag tensor "x_ptr" : i32, !tile.constexpr
    %x = tile.load %at : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":9:5)
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

// CHECK: verify-addresses: copy.py:9: 'tile.load' is unproved: reads rows [min0, max0 + 1) of 'x_ptr' (plan @ag); waits that dominate it: [BLOCK*pid0, BLOCK*pid0 + BLOCK)
// DEFAULT: tile.func @copy

// -----

// A loaded scalar index is one unknown row, bounded but not inside the wait
// of the program's tile: unproved (strict only). No value of it is known to
// fall outside, so it is not uncovered.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %idx_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "idx_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %one = arith.constant 1 : i32
    %i = tile.load %idx_ptr : !tile.ptr -> i32 loc("copy.py":8:5)
    %at = tile.addptr %x_ptr, %i : !tile.ptr, i32 -> !tile.ptr
    chunk.wait_span %lo, %BLOCK plan @ag tensor "x_ptr" : i32, !tile.constexpr
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

// CHECK: verify-addresses: copy.py:9: 'tile.load' is unproved: reads rows [v1_load, v1_load + 1) of 'x_ptr' (plan @ag); waits that dominate it: [BLOCK*pid0, BLOCK*pid0 + BLOCK)
// DEFAULT: tile.func @copy

// -----

// A row offset carried by a loop and advanced by a value loaded in the body
// is not `init + iteration * inc` (inc differs per iteration), even though
// the wait in the body computes `k * v` from the same SSA values: it is one
// unknown value per iteration (not even >= 0: `v` may be negative).
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %y_ptr: !tile.ptr, %M: !tile.scalar, %idx_ptr: !tile.ptr, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "y_ptr", "M", "idx_ptr", "BLOCK"], decorators = ["triton.jit"]} {
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %n = tile.retype %M : !tile.scalar -> i32
    %end = scf.for %k = %zero to %n step %one iter_args(%off = %zero) -> (i32) : i32 {
      %at = tile.addptr %idx_ptr, %k : !tile.ptr, i32 -> !tile.ptr
      %v = tile.load %at : !tile.ptr -> i32
      %lo = tile.mul %k, %v : i32, i32 -> i32
      %offs = tile.add %off, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
      %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
      chunk.wait_span %lo, %BLOCK plan @ag tensor "x_ptr" : i32, !tile.constexpr
      %x = tile.load %ptrs : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":9:5)
      %next = tile.add %off, %v : i32, i32 -> i32
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

// CHECK: verify-addresses: copy.py:9: 'tile.load' is unproved: reads rows [[[OFF:v[0-9]+_carried]], BLOCK + [[OFF]]) of 'x_ptr' (plan @ag); waits that dominate it: [iv0*v1_load, BLOCK + iv0*v1_load)
// DEFAULT: tile.func @copy
