// The SM programs copy into the plan tensor's kernel parameter: a binding to
// a name the kernel does not have is an error naming the plan and kernel.
// RUN: not overlap-opt %s -p lower-chunk-to-tile 2>&1 | filecheck %s

builtin.module {
  chunk.plan @ag kind "all-gather" world 2 {
    chunk.tensor "x" -> "y_ptr" shape [8] strides [1]
    chunk.chunk id 0 "x" dim 0 offset 0 size 4 src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "x" dim 0 offset 4 size 4 src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "x" dim 0 offset 0 size 4 src 0 dst 1 step 0 backend sm
    chunk.chunk id 3 "x" dim 0 offset 4 size 4 src 1 dst 0 step 0 backend sm
  }
  tile.func @k(%x_ptr: !tile.ptr) attributes {param_names = ["x_ptr"], decorators = ["triton.jit"]} {
    %pid = tile.program_id 0 : i32
    chunk.wait %pid plan @ag
    tile.return
  }
}

// CHECK: lower-chunk-to-tile: plan @ag binds 'y_ptr', not a parameter of @k
