// A gather into a tensor descriptor made on the host: the kernel's SM
// communication programs copy through a pointer, which a descriptor is not, so
// the cost model chooses the copy engine even where SM would be cheapest, and
// sm, forced, is an error naming the chunk and the descriptor.
// RUN: overlap-opt %s -p 'select-backend{sizes="M=64"}' | filecheck %s
// RUN: not overlap-opt %s -p 'select-backend{backend=sm}' 2>&1 | filecheck %s --check-prefix=FORCED

tile.func @k(%a_desc: !tile.desc<2>) attributes {param_names = ["a_desc"], decorators = ["triton.jit"]} {
  tile.return
}

chunk.plan @ag kind "all-gather" world 2 {
  chunk.tensor "a" -> "a_desc" shape ["M", 8] strides [8, 1]
  chunk.chunk id 0 "a" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "a" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend unset
  chunk.chunk id 3 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0 backend unset
}

// CHECK:      chunk.chunk id 2 {{.*}} backend ce attributes {chunk.cost = {bytes = 512 : i64, ce_us = {{.*}}, sm_us = {{.*}}, nccl_us = {{.*}}}}
// CHECK-NEXT: chunk.chunk id 3 {{.*}} backend ce attributes

// FORCED: select-backend: chunk 2 of @ag uses the SM backend, whose programs copy through a pointer, but 'a_desc' is a tensor descriptor made on the host; use backend=ce or backend=nccl
