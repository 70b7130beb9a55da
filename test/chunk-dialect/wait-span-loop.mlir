// chunk.wait_span_loop prints and parses back; its plan must exist and bind the tensor.
// RUN: %python -m syncopate.ir.plans.roundtrip %s | filecheck %s
// RUN: sed '/wait_span_loop %%k0/s/tensor "x"/tensor "y"/' %s > %t.mlir
// RUN: not %python -m syncopate.ir.plans.roundtrip %t.mlir 2>&1 | filecheck %s --check-prefix=TENSOR
builtin.module {
  func.func @walk(%k0 : i32, %extent : i32, %first : i32, %step : i32) {
    chunk.wait_span_loop %k0, %extent first %first step %step plan @ag tensor "x" : i32, i32, i32, i32
    func.return
  }
  chunk.plan @ag kind "all-gather" world 2 {
    chunk.tensor "x" -> "x_ptr" shape [8, "D1"] strides ["stride_x_0", "stride_x_1"]
    chunk.chunk id 0 "x" dim 0 offset 0 size 4 src 0 dst 0 step 0 backend unset
    chunk.chunk id 1 "x" dim 0 offset 4 size 4 src 1 dst 1 step 0 backend unset
    chunk.chunk id 2 "x" dim 0 offset 0 size 4 src 0 dst 1 step 0 backend unset
    chunk.chunk id 3 "x" dim 0 offset 4 size 4 src 1 dst 0 step 0 backend unset
  }
}
// CHECK: chunk.wait_span_loop %k0, %extent first %first step %step plan @ag tensor "x" : i32, i32, i32, i32
// TENSOR: 'chunk.wait_span_loop': plan @ag binds no tensor 'y'
