// Chunk sync ops in two functions: the pass cannot tell which one is the kernel.
// RUN: not overlap-opt %s -p lower-chunk-to-tile 2>&1 | filecheck %s

builtin.module {
  chunk.plan @ag kind "all-gather" world 1 {
    chunk.tensor "x" -> "x_ptr" shape [4] strides [1]
    chunk.chunk id 0 "x" dim 0 offset 0 size 4 src 0 dst 0 step 0 backend unset
  }
  tile.func @k1(%x_ptr: !tile.ptr) attributes {param_names = ["x_ptr"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    chunk.wait %pid plan @ag
    tile.return
  }
  tile.func @k2(%x_ptr: !tile.ptr) attributes {param_names = ["x_ptr"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    chunk.signal %pid plan @ag
    tile.return
  }
}

// CHECK: lower-chunk-to-tile: chunk waits/signals are spread over several functions
