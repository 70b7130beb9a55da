// Ring exchange: blocks circulate to the next rank only.
// RUN: %python -m syncopate.ir.plans "ring-exchange{world=1 size=3}" | filecheck %s --check-prefix=W1
// RUN: %python -m syncopate.ir.plans "ring-exchange{world=2 size=M}" | filecheck %s --check-prefix=W2
// RUN: %python -m syncopate.ir.plans "ring-exchange{world=3 size=11 chunks_per_rank=2 tensor=kv}" | filecheck %s --check-prefix=W3
// RUN: %python -m syncopate.ir.plans "ring-exchange{world=4 size=M}" | filecheck %s --check-prefix=W4
// RUN: %python -m syncopate.ir.plans "ring-exchange{world=8 size=8}" | filecheck %s --check-prefix=W8

// W1:     chunk.plan @rx kind "ring-exchange" world 1
// W1:     id 0 "a" dim 0 offset 0 size 3 src 0 dst 0
// W1-NOT: chunk.chunk

// W2:     id 2 "a" dim 0 offset 0 size "M/2" src 0 dst 1 step 0
// W2:     id 3 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0
// W2-NOT: chunk.chunk

// W3:     chunk.tensor "kv" -> "kv_ptr"
// W3:     id 5 "kv" dim 0 offset 8 size 3 src 2 dst 2 step 0
// W3:     id 17 "kv"
// W3-NOT: chunk.chunk

// W4-NOT: src 0 dst 2
// W4-NOT: src 0 dst 3

// W8:     src 7 dst 0 step 6
// W8-NOT: chunk.chunk
