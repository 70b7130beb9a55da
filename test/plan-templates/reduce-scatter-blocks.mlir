// A reduce-scatter whose extent is cut into blocks (a [b, s, h] tensor's rows
// scattered on s in place): rank r owns the r-th slice of every block.
// RUN: %python -m syncopate.ir.plans "reduce-scatter{world=2 size=8 blocks=2 order=direct}" | filecheck %s
// RUN: %python -m syncopate.ir.plans "reduce-scatter{world=2 size=8 blocks=1 order=direct}" | filecheck %s --check-prefix=ONE
// RUN: not %python -m syncopate.ir.plans "reduce-scatter{world=4 blocks=3 size=10}" 2>&1 | filecheck %s --check-prefix=SHORT
// RUN: not %python -m syncopate.ir.plans "all-gather{world=2 size=8 blocks=2}" 2>&1 | filecheck %s --check-prefix=GATHER

// Rows 0-3 and 4-7 are the blocks: rank 0 owns [0, 2) and [4, 6), rank 1 [2, 4) and [6, 8).
// CHECK:      id 0 "a" dim 0 offset 0 size 2 src 0 dst 0 step 0
// CHECK-NEXT: id 1 "a" dim 0 offset 4 size 2 src 0 dst 0 step 0
// CHECK-NEXT: id 2 "a" dim 0 offset 2 size 2 src 1 dst 1 step 0
// CHECK-NEXT: id 3 "a" dim 0 offset 6 size 2 src 1 dst 1 step 0
// CHECK-NEXT: id 4 "a" dim 0 offset 2 size 2 src 0 dst 1 step 0
// CHECK-NEXT: id 5 "a" dim 0 offset 0 size 2 src 1 dst 0 step 0
// CHECK-NEXT: id 6 "a" dim 0 offset 6 size 2 src 0 dst 1 step 1
// CHECK-NEXT: id 7 "a" dim 0 offset 4 size 2 src 1 dst 0 step 1
// CHECK-NOT:  chunk.chunk

// One block is the plain plan: each rank owns one contiguous half.
// ONE:      id 2 "a" dim 0 offset 4 size 4 src 0 dst 1 step 0
// ONE-NEXT: id 3 "a" dim 0 offset 0 size 4 src 1 dst 0 step 0
// ONE-NOT:  chunk.chunk

// SHORT: error: reduce-scatter: world=4 x blocks=3 is more shards than the 10 rows of dim 0; every rank needs at least one row of each block
// GATHER: error: all-gather: 'blocks' is only for reduce-scatter
