// All-reduce = reduce-scatter, then all-gather of the reduced shards.
// RUN: %python -m syncopate.ir.plans "all-reduce{world=1 size=4}" | filecheck %s --check-prefix=W1
// RUN: %python -m syncopate.ir.plans "all-reduce{world=2 size=5}" | filecheck %s --check-prefix=W2
// RUN: %python -m syncopate.ir.plans "all-reduce{world=3 size=M chunks_per_rank=2 order=direct}" | filecheck %s --check-prefix=W3
// RUN: %python -m syncopate.ir.plans "all-reduce{world=4 size=10}" | filecheck %s --check-prefix=W4
// RUN: %python -m syncopate.ir.plans "all-reduce{world=8 size=64 chunks_per_rank=2}" | filecheck %s --check-prefix=W8

// W1:     chunk.plan @ar kind "all-reduce" world 1
// W1:     id 0 "a" dim 0 offset 0 size 4 src 0 dst 0 step 0
// W1-NOT: chunk.chunk

// W2:      id 2 "a" dim 0 offset 2 size 3 src 0 dst 1 step 0
// W2-NEXT: id 3 "a" dim 0 offset 0 size 2 src 1 dst 0 step 0
// W2-NEXT: id 4 "a" dim 0 offset 0 size 2 src 0 dst 1 step 1
// W2-NEXT: id 5 "a" dim 0 offset 2 size 3 src 1 dst 0 step 1
// W2-NOT:  chunk.chunk

// Gather phase starts after (W-1)*chunks_per_rank = 4 reduce steps.
// W3:      src 0 dst 1 step 0
// W3:      src 0 dst 2 step 2
// W3:      src 0 dst 1 step 4
// W3:      id 29 "a" {{.*}} step 7
// W3-NOT:  chunk.chunk

// W4:     id 3 "a" dim 0 offset 6 size 4 src 3 dst 3 step 0
// W4:     src 3 dst 0 step 5
// W4-NOT: chunk.chunk

// W8:     id 239 "a" {{.*}} step 27
// W8-NOT: chunk.chunk
