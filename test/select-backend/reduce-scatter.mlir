// A reduce-scatter needs arithmetic at the owner, which the kernel's SM
// communication programs (pulls of gathered chunks) do not do: the cost
// model chooses among ce and nccl only, and sm, forced or hand-written, is an
// error naming the chunk.
// RUN: overlap-opt %s -p 'select-backend{sizes="M=64"}' | filecheck %s
// RUN: not overlap-opt %s -p 'select-backend{backend=sm}' 2>&1 | filecheck %s --check-prefix=FORCED

chunk.plan @rs kind "reduce-scatter" world 2 {
  chunk.tensor "c" -> "c_ptr" shape ["M", 8] strides [8, 1]
  chunk.chunk id 0 "c" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "c" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "c" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend unset
  chunk.chunk id 3 "c" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend unset
}

// With 512-byte chunks SM would be cheapest for a gather; here it is ce.
// CHECK:      chunk.chunk id 2 {{.*}} backend ce attributes {chunk.cost = {bytes = 512 : i64, ce_us = {{.*}}, sm_us = {{.*}}, nccl_us = {{.*}}}}
// CHECK-NEXT: chunk.chunk id 3 {{.*}} backend ce attributes

// FORCED: select-backend: chunk 2 of @rs uses the SM backend, which moves gathered chunks only; a reduce-scatter needs ce or nccl
