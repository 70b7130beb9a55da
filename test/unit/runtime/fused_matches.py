"""One check the workload tests of single idioms share: the workload's
fused kernel matches its unfused one on every simulated rank, under every
delivery order (sanitizer on), and waits at least once."""

from __future__ import annotations

from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.sim.delivery import DELIVERY_ORDERS


def assert_fuses_and_matches(workload, world: int) -> None:
    program = compile_workload(workload, world)
    for order in DELIVERY_ORDERS:
        results = run_simulated(workload, world, order, 0, program)
        assert all(r.ok for r in results), (order, [(r.rank, r.max_error) for r in results])
        assert sum(r.polls for r in results) > 0, "the fused kernel never waited"
