// Without the values of every shape symbol the bytes are unknown: the copy
// engine (it takes no SMs from compute), or the forced backend, and a reason.
// RUN: overlap-opt %s -p select-backend | filecheck %s
// RUN: overlap-opt %s -p 'select-backend{sizes="M=64"}' | filecheck %s
// RUN: overlap-opt %s -p 'select-backend{backend=nccl}' | filecheck %s --check-prefix=NCCL
// A module without plans is left alone.
// RUN: overlap-opt %S/inputs/no_plan.py -p 'select-backend{sizes="M=64,K=64"}' | filecheck %s --check-prefix=NOPLAN

chunk.plan @rs kind "reduce-scatter" world 2 {
  chunk.tensor "c" -> "c_ptr" shape ["M", "K"] strides ["stride_cm", 1]
  chunk.chunk id 0 "c" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "c" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "c" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0 backend unset
  chunk.chunk id 3 "c" dim 0 offset 0 size "M/2" src 1 dst 0 step 0 backend unset
}

// CHECK:      chunk.chunk id 1 {{.*}} backend unset{{$}}
// CHECK-NEXT: chunk.chunk id 2 {{.*}} backend ce attributes {chunk.cost = {reason = "sizes unknown"}}
// CHECK-NEXT: chunk.chunk id 3 {{.*}} backend ce attributes {chunk.cost = {reason = "sizes unknown"}}

// NCCL: chunk.chunk id 2 {{.*}} backend nccl attributes {chunk.cost = {reason = "sizes unknown"}}

// NOPLAN-LABEL: tile.func @tile_copy
// NOPLAN-NOT:   chunk.
