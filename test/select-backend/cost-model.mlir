// With sizes known each non-local chunk gets the cheaper of ce/sm and a
// chunk.cost recording why; local chunks (src == dst) stay unset.
// Small chunks (32x64 bf16 = 4 KiB): the SM copy's low latency wins.
// RUN: overlap-opt %s -p 'select-backend{sizes="M=64,K=64"}' | filecheck %s --check-prefix=SMALL
// Large chunks (32768x8192 bf16 = 512 MiB): the copy engine's bandwidth wins.
// RUN: overlap-opt %s -p 'select-backend{sizes="M=65536,K=8192"}' | filecheck %s --check-prefix=LARGE
// elem_bytes scales the bytes.
// RUN: overlap-opt %s -p 'select-backend{sizes="M=64,K=64" elem_bytes=4}' | filecheck %s --check-prefix=F32
// More copying SMs raise the SM bandwidth (sms * 25 GB/s, capped by the link): a
// 4 MiB chunk moves by SMs with 32 of them but by the copy engine with 8.
// RUN: overlap-opt %s -p 'select-backend{sizes="M=1024,K=4096" sms=32}' | filecheck %s --check-prefix=SMS32
// RUN: overlap-opt %s -p 'select-backend{sizes="M=1024,K=4096"}' | filecheck %s --check-prefix=SMS8

chunk.plan @ag kind "all-gather" world 2 {
  chunk.tensor "a" -> "a_ptr" shape ["M", "K"] strides ["stride_am", 1]
  chunk.chunk id 0 "a" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "a" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend unset
  chunk.chunk id 3 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0 backend unset
}

// SMALL:      chunk.chunk id 0 "a" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset{{$}}
// SMALL-NEXT: chunk.chunk id 1 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset{{$}}
// SMALL-NEXT: chunk.chunk id 2 "a" {{.*}} backend sm attributes {chunk.cost = {bytes = 4096 : i64, ce_us = 8.009000e+00 : f64, sm_us = 2.022000e+00 : f64, nccl_us = 2.000900e+01 : f64}}
// SMALL-NEXT: chunk.chunk id 3 "a" {{.*}} backend sm attributes {chunk.cost = {bytes = 4096 : i64,

// LARGE:      chunk.chunk id 0 {{.*}} backend unset{{$}}
// LARGE:      chunk.chunk id 2 "a" {{.*}} backend ce attributes {chunk.cost = {bytes = 536870912 : i64, ce_us = 1201.046 : f64,
// LARGE-NEXT: chunk.chunk id 3 "a" {{.*}} backend ce attributes

// F32: chunk.chunk id 2 "a" {{.*}} backend sm attributes {chunk.cost = {bytes = 8192 : i64,

// SMS32: chunk.chunk id 2 "a" {{.*}} backend sm attributes {chunk.cost = {bytes = 4194304 : i64,
// SMS8:  chunk.chunk id 2 "a" {{.*}} backend ce attributes {chunk.cost = {bytes = 4194304 : i64,
