// RUN: %python -m syncopate.ir.plans "reduce-scatter{world=1}" | filecheck %s --check-prefix=W1
// RUN: %python -m syncopate.ir.plans "reduce-scatter{world=2 size=M order=direct}" | filecheck %s --check-prefix=W2
// RUN: %python -m syncopate.ir.plans "reduce-scatter{world=3 size=7}" | filecheck %s --check-prefix=W3
// RUN: %python -m syncopate.ir.plans "reduce-scatter{world=4 size=16 chunks_per_rank=2}" | filecheck %s --check-prefix=W4
// RUN: %python -m syncopate.ir.plans "reduce-scatter{world=8 size=M chunks_per_rank=3 order=direct}" | filecheck %s --check-prefix=W8

// W1:      chunk.plan @rs kind "reduce-scatter" world 1 {
// W1:      chunk.chunk id 0 "a" dim 0 offset 0 size "M" src 0 dst 0 step 0
// W1-NOT:  chunk.chunk

// Direct: each rank sends the other's block straight to it.
// W2:      id 2 "a" dim 0 offset "M/2" size "M - M/2" src 0 dst 1 step 0
// W2-NEXT: id 3 "a" dim 0 offset 0 size "M/2" src 1 dst 0 step 0
// W2-NOT:  chunk.chunk

// Ring, 7 rows over 3 ranks: 2, 2, 3 (7 // 3 each, the last rank the rest). Rank r first sends block r-1.
// W3:      id 2 "a" dim 0 offset 4 size 3 src 2 dst 2 step 0
// W3-NEXT: id 3 "a" dim 0 offset 4 size 3 src 0 dst 1 step 0
// W3-NEXT: id 4 "a" dim 0 offset 0 size 2 src 1 dst 2 step 0
// W3-NEXT: id 5 "a" dim 0 offset 2 size 2 src 2 dst 0 step 0
// W3-NEXT: id 6 "a" dim 0 offset 2 size 2 src 0 dst 1 step 1
// W3-NEXT: id 7 "a" dim 0 offset 4 size 3 src 1 dst 2 step 1
// W3-NEXT: id 8 "a" dim 0 offset 0 size 2 src 2 dst 0 step 1
// W3-NOT:  chunk.chunk

// W4:      id 7 "a" dim 0 offset 14 size 2 src 3 dst 3 step 0
// W4:      offset 12 size 2 src 0 dst 1 step 0
// W4:      offset 14 size 2 src 0 dst 1 step 1
// W4:      id 31 "a"
// W4-NOT:  chunk.chunk

// Symbolic M: rank 7's shard [7*(M/8), M) cut into 3 pieces that end exactly at M.
// W8:      id 21 "a" dim 0 offset "7*(M/8)" size "(M - 7*(M/8))/3" src 7 dst 7 step 0
// W8:      id 23 "a" dim 0 offset "7*(M/8) + 2*((M - 7*(M/8))/3)" size "M - 7*(M/8) - 2*((M - 7*(M/8))/3)" src 7 dst 7 step 0
// W8:      src 0 dst 1 step 0
// W8:      id 191 "a"
// W8-NOT:  chunk.chunk
