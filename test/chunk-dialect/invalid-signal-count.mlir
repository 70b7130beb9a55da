// RUN: not %python -m syncopate.ir.plans.roundtrip %s | filecheck %s
func.func @kernel(%c : i32) {
  chunk.signal %c plan @p count 0
  func.return
}
// CHECK: error: chunk.signal count must be >= 1, got 0
