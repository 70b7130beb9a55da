// RUN: %python -m syncopate.ir.plans.roundtrip %s > %t.mlir
// RUN: %python -m syncopate.ir.plans.roundtrip %t.mlir | filecheck %s
// RUN: %python -m syncopate.ir.plans.roundtrip %t.mlir | diff - %t.mlir

builtin.module {
  chunk.plan @ag kind "all-gather" world 2 {
    chunk.tensor "a" -> "a_ptr" shape ["M", "K"] strides ["stride_am", 1]
    chunk.chunk id 0 "a" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "a" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend ce
    chunk.chunk id 3 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0 backend nccl attributes {note = "x"}
  }
  func.func @kernel(%tile : i32) {
    %c = arith.constant 2 : i32
    chunk.wait %c plan @ag
    chunk.signal %tile plan @ag count 4
    chunk.signal %tile plan @ag attributes {tag = 1 : i64}
    func.return
  }
}

// CHECK:      chunk.plan @ag kind "all-gather" world 2 {
// CHECK-NEXT:   chunk.tensor "a" -> "a_ptr" shape ["M", "K"] strides ["stride_am", 1]
// CHECK-NEXT:   chunk.chunk id 0 "a" dim 0 offset 0 size "M/2" src 0 dst 0 step 0 backend unset
// CHECK-NEXT:   chunk.chunk id 1 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 1 step 0 backend unset
// CHECK-NEXT:   chunk.chunk id 2 "a" dim 0 offset 0 size "M/2" src 0 dst 1 step 0 backend ce
// CHECK-NEXT:   chunk.chunk id 3 "a" dim 0 offset "M/2" size "M - M/2" src 1 dst 0 step 0 backend nccl attributes {note = "x"}
// CHECK-NEXT: }
// CHECK:      chunk.wait %c plan @ag
// CHECK-NEXT: chunk.signal %tile plan @ag count 4
// CHECK-NEXT: chunk.signal %tile plan @ag attributes {tag = 1 : i64}
