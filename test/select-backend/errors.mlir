// RUN: not overlap-opt %s -p 'select-backend{backend=bogus}' 2>&1 | filecheck %s --check-prefix=BACKEND
// RUN: not overlap-opt %s -p 'select-backend{sizes="M=x"}' 2>&1 | filecheck %s --check-prefix=SIZES
// RUN: not overlap-opt %s -p 'select-backend{sizes="M=64,2K=3"}' 2>&1 | filecheck %s --check-prefix=NAME

chunk.plan @ag kind "all-gather" world 2 {
  chunk.tensor "a" -> "a_ptr" shape ["M", 8] strides ["stride_am", 1]
  chunk.chunk id 0 "a" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "a" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend unset
  chunk.chunk id 3 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0 backend unset
}

// BACKEND: select-backend: unknown backend 'bogus', expected one of auto, ce, sm, nccl
// SIZES: select-backend: sizes expects NAME=INT pairs separated by commas, got 'M=x'
// NAME: select-backend: sizes expects NAME=INT pairs separated by commas, got '2K=3'
