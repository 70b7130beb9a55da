"""The plan verifier orders symbolic boundaries by proof, not by sampling."""

from __future__ import annotations

import pytest

from syncopate.ir.plans.errors import PlanError
from syncopate.ir.plans.model import Chunk, Plan, Tensor
from syncopate.ir.plans.spec import plan_from_spec
from syncopate.ir.plans.verifier import _Symbolic, verify_plan


def _gather(sizes: list[tuple[object, object]], extent: object = "M") -> Plan:
    """A W=2 all-gather whose local chunks are ``sizes`` and whose remote
    chunks copy them to the other rank."""
    chunks = [Chunk(r, "a", 0, off, size, r, r, 0) for r, (off, size) in enumerate(sizes)]
    chunks += [Chunk(2 + r, "a", 0, off, size, r, 1 - r, 0) for r, (off, size) in enumerate(sizes)]
    return Plan("ag", "all-gather", 2, (Tensor("a", "a_ptr", (extent, "K"), ("K", 1)),), tuple(chunks))


@pytest.mark.parametrize(
    "spec",
    ["all-gather{world=4 chunks_per_rank=2}", "reduce-scatter{world=3 chunks_per_rank=3}",
     "all-reduce{world=4}", "ring-exchange{world=4}", "all-gather{world=2 size=\"M*K\"}"],
)
def test_template_plans_are_ordered_symbolically(spec) -> None:
    plan = plan_from_spec(spec)
    segments = _Symbolic.order(plan, plan.tensors[0], list(plan.chunks))
    assert segments is not None
    verify_plan(plan)


def test_a_gap_for_odd_sizes_is_named_symbolically() -> None:
    plan = _gather([(0, "M/2"), ("M/2", "M/2")])
    with pytest.raises(PlanError, match=r"gap: no chunk covers \[2\*\(M/2\), M\) of tensor 'a'") as err:
        verify_plan(plan)
    assert "checked with" not in str(err.value)


def test_an_overlap_is_named_symbolically() -> None:
    plan = _gather([(0, "M - M/2"), ("M/2", "M - M/2")])
    with pytest.raises(PlanError, match=r"overlaps chunk 0 .* on \[M/2, M - M/2\)"):
        verify_plan(plan)


def test_unordered_boundaries_fall_back_to_bindings() -> None:
    """``K`` and ``M/2`` have no order valid for every value: the verifier
    samples bindings, and says which binding failed."""
    plan = _gather([(0, "K"), ("K", "M - K")])
    assert _Symbolic.order(plan, plan.tensors[0], list(plan.chunks)) is None
    verify_plan(_gather([(0, "M/2"), ("M/2", "M - M/2")]))
    bad = _gather([(0, "K"), ("M/2", "M - M/2")])
    with pytest.raises(PlanError, match="checked with K="):
        verify_plan(bad)
