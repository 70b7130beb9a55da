// All-to-all: chunks are in the receiver's output coordinates, blocks ordered by source rank.
// RUN: %python -m syncopate.ir.plans "all-to-all{world=1 size=6}" | filecheck %s --check-prefix=W1
// RUN: %python -m syncopate.ir.plans "all-to-all{world=2 splits=3,1,2,2}" | filecheck %s --check-prefix=W2
// RUN: %python -m syncopate.ir.plans "all-to-all{world=3 splits=1,2,3 chunks_per_rank=2}" | filecheck %s --check-prefix=W3
// RUN: %python -m syncopate.ir.plans "all-to-all{world=4 size=M}" | filecheck %s --check-prefix=W4
// RUN: %python -m syncopate.ir.plans "all-to-all{world=8 size=10}" | filecheck %s --check-prefix=W8

// W1:     chunk.plan @a2a kind "all-to-all" world 1 splits [6] {
// W1:     id 0 "a" dim 0 offset 0 size 6 src 0 dst 0 step 0
// W1-NOT: chunk.chunk

// splits row-major [src][dst]: 0 keeps 3, sends 1 to rank 1; 1 sends 2 to rank 0, keeps 2.
// W2:      splits [3, 1, 2, 2]
// W2:      id 0 "a" dim 0 offset 0 size 3 src 0 dst 0 step 0
// W2-NEXT: id 1 "a" dim 0 offset 1 size 2 src 1 dst 1 step 0
// W2-NEXT: id 2 "a" dim 0 offset 0 size 1 src 0 dst 1 step 0
// W2-NEXT: id 3 "a" dim 0 offset 3 size 2 src 1 dst 0 step 0
// W2-NOT:  chunk.chunk

// W splits: every rank sends splits[d] rows to rank d; the 3 rows for rank 2 go in 2 pieces (3 // 2, then the rest).
// W3:     splits [1, 2, 3, 1, 2, 3, 1, 2, 3]
// W3:     offset 6 size 1 src 2 dst 2 step 0
// W3:     offset 7 size 2 src 2 dst 2 step 0
// W3-NOT: size 0

// W4:     id 3 "a" dim 0 offset "3*M - 9*(M/4)" size "M - 3*(M/4)" src 3 dst 3 step 0
// W4:     id 15 "a"
// W4-NOT: chunk.chunk

// 10 rows into 8 pieces: 10 // 8 = 1 each, the last piece the rest (3); no block is empty.
// W8:     splits [1, 1, 1, 1, 1, 1, 1, 3,
// W8-NOT: size 0
// W8:     id 63 "a"
// W8-NOT: chunk.chunk
