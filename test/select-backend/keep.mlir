// Backends already in the plan (hand-written) are kept, even with backend=
// forcing the others; only unset non-local chunks are chosen.
// RUN: overlap-opt %s -p 'select-backend{sizes="M=64,K=64"}' | filecheck %s
// RUN: overlap-opt %s -p 'select-backend{backend=ce sizes="M=64,K=64"}' | filecheck %s --check-prefix=FORCE
// Running it twice changes nothing the second time.
// RUN: overlap-opt %s -p 'select-backend{sizes="M=64,K=64"}' > %t.once.mlir
// RUN: overlap-opt %t.once.mlir -p 'select-backend{backend=nccl sizes="M=64,K=64"}' > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

chunk.plan @ag kind "all-gather" world 2 {
  chunk.tensor "a" -> "a_ptr" shape ["M", "K"] strides ["stride_am", 1]
  chunk.chunk id 0 "a" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "a" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend nccl
  chunk.chunk id 3 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0 backend unset
}

// CHECK:      chunk.chunk id 2 "a" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend nccl{{$}}
// CHECK-NEXT: chunk.chunk id 3 "a" {{.*}} backend sm attributes {chunk.cost = {bytes = 4096 : i64,

// FORCE:      chunk.chunk id 0 {{.*}} backend unset{{$}}
// FORCE:      chunk.chunk id 2 {{.*}} backend nccl{{$}}
// FORCE-NEXT: chunk.chunk id 3 "a" {{.*}} backend ce attributes {chunk.cost = {bytes = 4096 : i64, ce_us = 8.009000e+00 : f64, sm_us = 2.022000e+00 : f64
