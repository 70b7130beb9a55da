// RUN: not %python -m syncopate.ir.plans.roundtrip %s | filecheck %s
chunk.plan @ag kind "all-gather" world 1 {
  chunk.tensor "a" -> "a_ptr" shape [4] strides [1]
  chunk.chunk id 0 "a" dim 0 offset 0 size 4 src 0 dst 0 step 0 backend pcie
}
// CHECK: error: chunk 0 (tensor 'a', src 0, dst 0, offset 0, size 4, step 0): unknown backend 'pcie', expected one of ce, sm, nccl, unset
