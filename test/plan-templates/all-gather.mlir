// All-gather template: W = 1, 2, 3, 4, 8; chunks_per_rank 1 and > 1; uneven and symbolic sizes.
// RUN: %python -m syncopate.ir.plans "all-gather{world=1 size=8}" | filecheck %s --check-prefix=W1
// RUN: %python -m syncopate.ir.plans "all-gather{world=2 size=M}" | filecheck %s --check-prefix=W2
// RUN: %python -m syncopate.ir.plans "all-gather{world=3 size=10 chunks_per_rank=2}" | filecheck %s --check-prefix=W3
// RUN: %python -m syncopate.ir.plans "all-gather{world=4 size=16 order=direct}" | filecheck %s --check-prefix=W4D
// RUN: %python -m syncopate.ir.plans "all-gather{world=8 size=100 chunks_per_rank=2 tensor=b dim=1}" | filecheck %s --check-prefix=W8

// W1:      chunk.plan @ag kind "all-gather" world 1 {
// W1-NEXT:   chunk.tensor "a" -> "a_ptr" shape [8, "D1"] strides ["stride_a_0", "stride_a_1"]
// W1-NEXT:   chunk.chunk id 0 "a" dim 0 offset 0 size 8 src 0 dst 0 step 0 backend unset
// W1-NEXT: }

// Symbolic: floor pieces, the last one takes the remainder.
// W2:      chunk.chunk id 0 "a" dim 0 offset 0 size "M/2" src 0 dst 0 step 0
// W2-NEXT: chunk.chunk id 1 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0
// W2-NEXT: chunk.chunk id 2 "a" dim 0 offset 0 size "M/2" src 0 dst 1 step 0
// W2-NEXT: chunk.chunk id 3 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0
// W2-NOT:  chunk.chunk

// 10 rows: shards of 3, 3, 4 (10 // 3 per rank, the last rank the rest:
// the rule shard_bounds follows), each cut into 2 pieces by the same rule, so a
// rank's pieces cover exactly its shard; ring: a piece received at step
// k*2+c is forwarded at step (k+1)*2+c.
// W3:      chunk.chunk id 4 "a" dim 0 offset 6 size 2 src 2 dst 2 step 0
// W3:      chunk.chunk id 5 "a" dim 0 offset 8 size 2 src 2 dst 2 step 0
// W3:      chunk.chunk id 6 "a" dim 0 offset 0 size 1 src 0 dst 1 step 0
// W3:      chunk.chunk id 9 "a" dim 0 offset 1 size 2 src 0 dst 1 step 1
// W3:      chunk.chunk id 12 "a" dim 0 offset 6 size 2 src 0 dst 1 step 2
// W3:      chunk.chunk id 17 "a" dim 0 offset 4 size 2 src 2 dst 0 step 3
// W3-NOT:  chunk.chunk

// Direct: rank r sends its own shard to r+k+1 at step k.
// W4D-COUNT-4: src [[R:[0-9]]] dst [[R]] step 0
// W4D:     offset 0 size 4 src 0 dst 1 step 0
// W4D:     offset 0 size 4 src 0 dst 2 step 1
// W4D:     offset 0 size 4 src 0 dst 3 step 2
// W4D:     offset 12 size 4 src 3 dst 2 step 2
// W4D-NOT: chunk.chunk

// 100 over 8 shards of 12 (the last one 16), each cut into 2 pieces (6 + 6, the last 8 + 8).
// W8:      chunk.tensor "b" -> "b_ptr" shape ["D0", 100] strides ["stride_b_0", "stride_b_1"]
// W8:      chunk.chunk id 0 "b" dim 1 offset 0 size 6 src 0 dst 0 step 0
// W8:      chunk.chunk id 1 "b" dim 1 offset 6 size 6 src 0 dst 0 step 0
// W8:      chunk.chunk id 15 "b" dim 1 offset 92 size 8 src 7 dst 7 step 0
// W8-NOT:  offset 100
// W8:      chunk.chunk id 110 "b" dim 1 offset 18 size 6 src 6 dst 7 step 11
// W8:      chunk.chunk id 127 "b"
// W8-NOT:  chunk.chunk
