// Reads of a gathered tensor that verify-sync refuses, one per chunk: each
// error names the load's source line, the rows it reads and the waits that
// reach it. (no-wait.mlir shows the whole message as overlap-opt prints it.)
// RUN: overlap-opt %s -p verify-sync --split-input-file --verify-diagnostics | filecheck %s

// A wait for half the tile's rows.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
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

// CHECK: verify-sync: copy.py:9: 'tile.load' reads [BLOCK*pid0, BLOCK*pid0 + BLOCK) along dim 0 of 'x_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: [BLOCK*pid0, BLOCK*pid0 + (BLOCK // 2)))

// -----

// A wait that starts one row late.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
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

// CHECK: verify-sync: copy.py:9: 'tile.load' reads [BLOCK*pid0, BLOCK*pid0 + BLOCK) along dim 0 of 'x_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: [BLOCK*pid0 + 1, BLOCK*pid0 + BLOCK + 1))

// -----

// The wait after the load.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
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

// CHECK: verify-sync: copy.py:9: 'tile.load' reads [BLOCK*pid0, BLOCK*pid0 + BLOCK) along dim 0 of 'x_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: none)

// -----

// A wait in one arm of an if covers nothing after the if.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %c = tile.retype %flag : !tile.scalar -> i1
    scf.if %c {
      chunk.wait_span %lo, %BLOCK plan @ag tensor "x_ptr" : i32, !tile.constexpr
      scf.yield
    } else {
      scf.yield
    }
    %x = tile.load %ptrs : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":12:5)
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

// CHECK: verify-sync: copy.py:12: 'tile.load' reads [BLOCK*pid0, BLOCK*pid0 + BLOCK) along dim 0 of 'x_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: none)

// -----

// A wait in one arm of an if covers nothing in the other arm.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %c = tile.retype %flag : !tile.scalar -> i1
    %x = scf.if %c -> (!tile.any) {
      chunk.wait_span %lo, %BLOCK plan @ag tensor "x_ptr" : i32, !tile.constexpr
      %a = tile.load %ptrs : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":10:9)
      scf.yield %a : !tile.any
    } else {
      %b = tile.load %ptrs : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":12:9)
      scf.yield %b : !tile.any
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

// CHECK: verify-sync: copy.py:12: 'tile.load' reads [BLOCK*pid0, BLOCK*pid0 + BLOCK) along dim 0 of 'x_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: none)

// -----

// A wait before a loop for the first iteration's rows only.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %ub = tile.retype %M : !tile.scalar -> i32
    %step = tile.retype %BLOCK : !tile.constexpr -> i32
    chunk.wait_span %zero, %BLOCK plan @ag tensor "x_ptr" : i32, !tile.constexpr
    scf.for %k0 = %zero to %ub step %step : i32 {
      %ks = tile.add %k0, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
      %kp = tile.addptr %x_ptr, %ks : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
      %x = tile.load %kp : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":11:9)
      scf.yield
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

// CHECK: verify-sync: copy.py:11: 'tile.load' reads [BLOCK*i_k0, BLOCK*i_k0 + BLOCK) along dim 0 of 'x_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: [0, BLOCK))

// -----

// A loop wait whose step is not the loop's: the chunks it skips were never waited for.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %ub = tile.retype %M : !tile.scalar -> i32
    %step = tile.retype %BLOCK : !tile.constexpr -> i32
    %two = arith.constant 2 : i32
    %skip = tile.mul %step, %two : i32, i32 -> i32
    scf.for %k0 = %zero to %ub step %step : i32 {
      chunk.wait_span_loop %k0, %BLOCK first %zero step %skip plan @ag tensor "x_ptr" : i32, !tile.constexpr, i32, i32
      %ks = tile.add %k0, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
      %kp = tile.addptr %x_ptr, %ks : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
      %x = tile.load %kp : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":11:9)
      scf.yield
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

// CHECK: verify-sync: copy.py:11: 'tile.load' reads [BLOCK*i_k0, BLOCK*i_k0 + BLOCK) along dim 0 of 'x_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: none; a chunk.wait_span_loop of [BLOCK*i_k0, BLOCK*i_k0 + BLOCK) does not count: its lo BLOCK*i_k0 is not first + iteration * step (0 + iteration * 2*BLOCK), so the chunks it skips as the previous iteration's may not have been waited for)

// -----

// A loop wait under an if in the loop body does not run in every iteration.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %ub = tile.retype %M : !tile.scalar -> i32
    %step = tile.retype %BLOCK : !tile.constexpr -> i32
    %c = tile.retype %flag : !tile.scalar -> i1
    scf.for %k0 = %zero to %ub step %step : i32 {
      scf.if %c {
        chunk.wait_span_loop %k0, %BLOCK first %zero step %step plan @ag tensor "x_ptr" : i32, !tile.constexpr, i32, i32
        %ks = tile.add %k0, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
        %kp = tile.addptr %x_ptr, %ks : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
        %x = tile.load %kp : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":12:13)
        scf.yield
      } else {
        scf.yield
      }
      scf.yield
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

// CHECK: verify-sync: copy.py:12: 'tile.load' reads [BLOCK*i_k0, BLOCK*i_k0 + BLOCK) along dim 0 of 'x_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: none; a chunk.wait_span_loop of [BLOCK*i_k0, BLOCK*i_k0 + BLOCK) does not count: it is not directly in the body of a for loop, so the chunks it skips were never waited for)

// -----

// A wrapped index `(lo + arange) % M` with the wait for the rows past M missing.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %wrapped = tile.mod %offs, %M : !tile.block<?xi32>, !tile.scalar -> !tile.block<?xi32>
    %wp = tile.addptr %x_ptr, %wrapped : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    %start = tile.mod %lo, %M : i32, !tile.scalar -> i32
    chunk.wait_span %start, %BLOCK plan @ag tensor "x_ptr" : i32, !tile.constexpr
    %x = tile.load %wp : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":10:5)
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

// CHECK: verify-sync: copy.py:10: 'tile.load' reads [0, BLOCK - M + (BLOCK*pid0 % M)) along dim 0 of 'x_ptr' (plan @ag), but no chunk.wait_span before it covers them on every path (waits that dominate it: [(BLOCK*pid0 % M), BLOCK + (BLOCK*pid0 % M)))

// -----

// The pointer passed to a jit helper: an access the analysis does not model is an error, never skipped.
builtin.module {
  tile.func @copy(%x_ptr: !tile.ptr, %M: !tile.scalar, %flag: !tile.scalar, %BLOCK: !tile.constexpr) attributes {param_names = ["x_ptr", "M", "flag", "BLOCK"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    %lo = tile.mul %pid, %BLOCK : i32, !tile.constexpr -> i32
    %zero = arith.constant 0 : i32
    %range = tile.arange %zero, %BLOCK : i32, !tile.constexpr -> !tile.block<?xi32>
    %offs = tile.add %lo, %range : i32, !tile.block<?xi32> -> !tile.block<?xi32>
    %ptrs = tile.addptr %x_ptr, %offs : !tile.ptr, !tile.block<?xi32> -> !tile.block<?x!tile.ptr>
    chunk.wait_span %lo, %BLOCK plan @ag tensor "x_ptr" : i32, !tile.constexpr
    %x = tile.load %ptrs : !tile.block<?x!tile.ptr> -> !tile.any loc("copy.py":9:5)
    %y = tile.call_jit @helper(%x_ptr, %lo) : (!tile.ptr, i32) -> !tile.any loc("copy.py":10:5)
    tile.return
  }
  tile.func @helper(%p: !tile.ptr, %at: i32) -> !tile.any attributes {param_names = ["p", "at"], decorators = ["triton.jit"]} {
    %v = tile.load %p : !tile.ptr -> !tile.any
    tile.return %v : !tile.any
  }
  chunk.plan @ag kind "all-gather" world 2 {
    chunk.tensor "x_ptr" -> "x_ptr" shape ["M"] strides [1]
    chunk.chunk id 0 "x_ptr" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "x_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "x_ptr" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend unset
    chunk.chunk id 3 "x_ptr" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0 backend unset
  }
}

// CHECK: chunk-dependency-analysis: copy.py:10: 'tile.call_jit': passes 'x_ptr' to the jit helper @helper; accesses inside helpers are not analysed, so they cannot be synchronised (access 'x_ptr' in the kernel itself)
