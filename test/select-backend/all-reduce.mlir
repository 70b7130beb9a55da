// An all-reduce is a reduce-scatter then a gather of the summed rows: the
// owner adds, so the cost model chooses among ce and nccl for every chunk,
// the gather phase's included, and sm, forced, is an error naming the chunk.
// RUN: overlap-opt %s -p 'select-backend{sizes="M=64"}' | filecheck %s
// RUN: overlap-opt %s -p 'select-backend{backend=nccl}' | filecheck %s --check-prefix=NCCL
// RUN: not overlap-opt %s -p 'select-backend{backend=sm}' 2>&1 | filecheck %s --check-prefix=FORCED

chunk.plan @ar kind "all-reduce" world 2 {
  chunk.tensor "c" -> "c_ptr" shape ["M", 8] strides [8, 1]
  chunk.chunk id 0 "c" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "c" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "c" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend unset
  chunk.chunk id 3 "c" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend unset
  chunk.chunk id 4 "c" dim 0 offset 0 size "M/2" src 0 dst 1 step 1 backend unset
  chunk.chunk id 5 "c" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 1 backend unset
}

// CHECK:      chunk.chunk id 2 {{.*}} backend ce attributes
// CHECK-NEXT: chunk.chunk id 3 {{.*}} backend ce attributes
// CHECK-NEXT: chunk.chunk id 4 {{.*}} backend ce attributes
// CHECK-NEXT: chunk.chunk id 5 {{.*}} backend ce attributes
// NCCL-COUNT-4: backend nccl
// NCCL-NOT: backend ce
// FORCED: select-backend: chunk 2 of @ar uses the SM backend, which moves gathered chunks only; a all-reduce needs ce or nccl
