// RUN: not %python -m syncopate.ir.plans.roundtrip %s | filecheck %s
chunk.plan @p kind "broadcast" world 2 {
}
// CHECK: error: unknown collective kind 'broadcast', expected one of all-gather, reduce-scatter, all-to-all, all-reduce, ring-exchange
