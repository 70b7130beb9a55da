// RUN: not %python -m syncopate.ir.plans.roundtrip %s | filecheck %s
func.func @kernel(%c : i32) {
  chunk.wait %c plan @missing
  func.return
}
// CHECK: error: 'chunk.wait' refers to @missing, but no such chunk.plan is in scope
