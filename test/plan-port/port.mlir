// DTensor placement changes over a 1-D mesh -> the collective's plan.
// RUN: %python -m syncopate.ir.plans 'port{from="Shard(0)" to="Replicate()" world=4 tensor=a}' | filecheck %s --check-prefix=AG
// RUN: %python -m syncopate.ir.plans "port{from=partial to=shard-1 world=2 size=8 tensor=c}" | filecheck %s --check-prefix=RS
// RUN: %python -m syncopate.ir.plans "port{from=P to=R world=3 size=9}" | filecheck %s --check-prefix=AR
// RUN: %python -m syncopate.ir.plans "port{from=S0 to=S1 world=2 size=M}" | filecheck %s --check-prefix=A2A
// RUN: not %python -m syncopate.ir.plans "port{from=replicate to=shard-0 world=2}" 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not %python -m syncopate.ir.plans "port{from=S0 to=S0 world=2}" 2>&1 | filecheck %s --check-prefix=SAME
// RUN: not %python -m syncopate.ir.plans "port{to=replicate world=2}" 2>&1 | filecheck %s --check-prefix=MISSING

// AG: chunk.plan @ag kind "all-gather" world 4
// AG: id 15 "a" dim 0
// RS: chunk.plan @rs kind "reduce-scatter" world 2
// RS: chunk.tensor "c" -> "c_ptr" shape ["D0", 8]
// RS: id 0 "c" dim 1 offset 0 size 4 src 0 dst 0
// AR: chunk.plan @ar kind "all-reduce" world 3
// A2A: chunk.plan @a2a kind "all-to-all" world 2 splits ["M/2", "M - M/2", "M/2", "M - M/2"]

// BAD:  error: cannot port Replicate() -> Shard(0): no collective for this placement change. Supported: Shard(d) -> Replicate() (all-gather); Partial() -> Shard(d) (reduce-scatter); Partial() -> Replicate() (all-reduce); Shard(a) -> Shard(b), a != b (all-to-all)
// SAME: error: cannot port Shard(0) -> Shard(0)
// MISSING: error: port: missing required option 'from'
