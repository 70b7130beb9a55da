// Each plan below is wrong in one way; the verifier names the chunk(s) and the problem.
// RUN: not %python -m syncopate.ir.plans --split-input-file %s | filecheck %s

// A deleted forward: rank 1 never gets rank 0's shard.
chunk.plan @ag kind "all-gather" world 2 {
  chunk.tensor "a" -> "a_ptr" shape [8] strides [1]
  chunk.chunk id 0 "a" dim 0 offset 0 size 4 src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "a" dim 0 offset 4 size 4 src 1 dst 1 step 0 backend unset
  chunk.chunk id 3 "a" dim 0 offset 4 size 4 src 1 dst 0 step 0 backend unset
}
// CHECK: error: invalid chunk plan @ag: rank 1 never receives [0, 4) of tensor 'a'

// -----
// Overlapping local shards.
chunk.plan @ag kind "all-gather" world 2 {
  chunk.tensor "a" -> "a_ptr" shape [8] strides [1]
  chunk.chunk id 0 "a" dim 0 offset 0 size 5 src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "a" dim 0 offset 4 size 4 src 1 dst 1 step 0 backend unset
}
// CHECK: error: invalid chunk plan @ag: chunk 1 (tensor 'a', src 1, dst 1, offset 4, size 4, step 0) overlaps chunk 0 (tensor 'a', src 0, dst 0, offset 0, size 5, step 0) on [4, 5)

// -----
// Forwarded before it arrived.
chunk.plan @ag kind "all-gather" world 3 {
  chunk.tensor "a" -> "a_ptr" shape [3] strides [1]
  chunk.chunk id 0 "a" dim 0 offset 0 size 1 src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "a" dim 0 offset 1 size 1 src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "a" dim 0 offset 2 size 1 src 2 dst 2 step 0 backend unset
  chunk.chunk id 3 "a" dim 0 offset 0 size 1 src 0 dst 1 step 1 backend unset
  chunk.chunk id 4 "a" dim 0 offset 1 size 1 src 1 dst 2 step 0 backend unset
  chunk.chunk id 5 "a" dim 0 offset 2 size 1 src 2 dst 0 step 0 backend unset
  chunk.chunk id 6 "a" dim 0 offset 0 size 1 src 1 dst 2 step 0 backend unset
  chunk.chunk id 7 "a" dim 0 offset 1 size 1 src 2 dst 0 step 1 backend unset
  chunk.chunk id 8 "a" dim 0 offset 2 size 1 src 0 dst 1 step 1 backend unset
}
// CHECK: error: invalid chunk plan @ag: chunk 6 (tensor 'a', src 1, dst 2, offset 0, size 1, step 0) sends [0, 1) from rank 1 at step 0, but rank 1 does not hold it before that step; it only arrives there with chunk 3

// -----
// Rank out of range.
chunk.plan @ag kind "all-gather" world 2 {
  chunk.tensor "a" -> "a_ptr" shape [2] strides [1]
  chunk.chunk id 0 "a" dim 0 offset 0 size 2 src 0 dst 2 step 0 backend unset
}
// CHECK: error: chunk 0 (tensor 'a', src 0, dst 2, offset 0, size 2, step 0): dst rank 2 is outside [0, 2)

// -----
// Double-counted partial sum.
chunk.plan @rs kind "reduce-scatter" world 2 {
  chunk.tensor "a" -> "a_ptr" shape [4] strides [1]
  chunk.chunk id 0 "a" dim 0 offset 0 size 2 src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "a" dim 0 offset 2 size 2 src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "a" dim 0 offset 2 size 2 src 0 dst 1 step 0 backend unset
  chunk.chunk id 3 "a" dim 0 offset 0 size 2 src 1 dst 0 step 0 backend unset
  chunk.chunk id 4 "a" dim 0 offset 0 size 2 src 1 dst 0 step 1 backend unset
}
// CHECK: error: invalid chunk plan @rs: chunk 4 {{.*}} adds the contributions of ranks [1] to [0, 2) on rank 0, which already has those of ranks [0, 1]: ranks [1] would be counted twice

// -----
// Missing contribution.
chunk.plan @rs kind "reduce-scatter" world 2 {
  chunk.tensor "a" -> "a_ptr" shape [4] strides [1]
  chunk.chunk id 0 "a" dim 0 offset 0 size 2 src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "a" dim 0 offset 2 size 2 src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "a" dim 0 offset 2 size 2 src 0 dst 1 step 0 backend unset
}
// CHECK: error: invalid chunk plan @rs: rank 0 ends with [0, 2) of tensor 'a' missing the contributions of ranks [1]

// -----
// Symbolic plan that only works when M is even.
chunk.plan @ag kind "all-gather" world 2 {
  chunk.tensor "a" -> "a_ptr" shape ["M"] strides [1]
  chunk.chunk id 0 "a" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "a" dim 0 offset "M/2" size "M/2" src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "a" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend unset
  chunk.chunk id 3 "a" dim 0 offset "M/2" size "M/2" src 1 dst 0 step 0 backend unset
}
// Checked symbolically: the gap is named for every M (it is empty for even M).
// CHECK: error: invalid chunk plan @ag: gap: no chunk covers [2*(M/2), M) of tensor 'a' by the ranks' own shards (local chunks, src == dst){{$}}

// -----
// Unknown symbol, unbound tensor, duplicate id.
chunk.plan @ag kind "all-gather" world 1 {
  chunk.tensor "a" -> "a_ptr" shape ["M"] strides [1]
  chunk.chunk id 0 "a" dim 0 offset 0 size "N" src 0 dst 0 step 0 backend unset
}
// CHECK: error: invalid chunk plan @ag: chunk 0 {{.*}}: unknown symbol(s) N; known: M, W

// -----
chunk.plan @ag kind "all-gather" world 1 {
  chunk.tensor "a" -> "a_ptr" shape [4] strides [1]
  chunk.chunk id 0 "b" dim 0 offset 0 size 4 src 0 dst 0 step 0 backend unset
}
// CHECK: error: invalid chunk plan @ag: chunk 0 {{.*}}: tensor 'b' has no chunk.tensor binding

// -----
chunk.plan @ag kind "all-gather" world 1 {
  chunk.tensor "a" -> "a_ptr" shape [4] strides [1]
  chunk.chunk id 0 "a" dim 0 offset 0 size 2 src 0 dst 0 step 0 backend unset
  chunk.chunk id 0 "a" dim 0 offset 2 size 2 src 0 dst 0 step 0 backend unset
}
// CHECK: error: invalid chunk plan @ag: chunk id 0 is used twice

// -----
// All-to-all block in the wrong place.
chunk.plan @a2a kind "all-to-all" world 2 splits [1, 1, 1, 1] {
  chunk.tensor "a" -> "a_ptr" shape [2] strides [1]
  chunk.chunk id 0 "a" dim 0 offset 0 size 1 src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "a" dim 0 offset 1 size 1 src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "a" dim 0 offset 1 size 1 src 0 dst 1 step 0 backend unset
  chunk.chunk id 3 "a" dim 0 offset 1 size 1 src 1 dst 0 step 0 backend unset
}
// CHECK: error: invalid chunk plan @a2a: chunk 2 {{.*}} covers [1, 2) of tensor 'a' on rank 1, but the data from rank 0 occupies [0, 1)

// -----
// Ring exchange may only pass to the next rank.
chunk.plan @rx kind "ring-exchange" world 3 {
  chunk.tensor "a" -> "a_ptr" shape [3] strides [1]
  chunk.chunk id 0 "a" dim 0 offset 0 size 1 src 0 dst 0 step 0 backend unset
  chunk.chunk id 1 "a" dim 0 offset 1 size 1 src 1 dst 1 step 0 backend unset
  chunk.chunk id 2 "a" dim 0 offset 2 size 1 src 2 dst 2 step 0 backend unset
  chunk.chunk id 3 "a" dim 0 offset 0 size 1 src 0 dst 2 step 0 backend unset
}
// CHECK: error: invalid chunk plan @rx: chunk 3 {{.*}}: a ring-exchange only sends to the next rank (1), not to rank 2
