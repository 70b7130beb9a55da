"""Property tests: every template plan verifies; single-chunk mutations are caught."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from syncopate.ir.plans.errors import PlanError
from syncopate.ir.plans.model import Plan
from syncopate.ir.plans.templates import TemplateOptions, instantiate
from syncopate.ir.plans.verifier import verify_plan

KINDS = ("all-gather", "reduce-scatter", "all-reduce", "all-to-all", "ring-exchange")
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def template_plans(draw: st.DrawFn, min_world: int = 1) -> Plan:
    kind = draw(st.sampled_from(KINDS))
    world = draw(st.integers(min_world, 6))
    cpr = draw(st.integers(1, 3))
    size = draw(st.one_of(st.integers(world * cpr, 200), st.sampled_from(["M", "2*K"])))
    order = "ring" if kind == "ring-exchange" else draw(st.sampled_from(["ring", "direct"]))
    splits = None
    if kind == "all-to-all" and draw(st.booleans()):
        n = draw(st.sampled_from([world, world * world]))
        splits = tuple(draw(st.lists(st.integers(1, 9), min_size=n, max_size=n)))
    opts = TemplateOptions(kind=kind, world=world, size=size, chunks_per_rank=cpr,
                           order=order, splits=splits)
    return instantiate(opts)


def _with(plan: Plan, chunks: list) -> Plan:
    return dataclasses.replace(plan, chunks=tuple(chunks))


@FAST
@given(template_plans())
def test_every_template_plan_verifies(plan: Plan) -> None:
    verify_plan(plan)
    ids = [c.id for c in plan.chunks]
    assert len(set(ids)) == len(ids)


@FAST
@given(template_plans(), st.data())
def test_deleting_any_chunk_is_caught(plan: Plan, data: st.DataObject) -> None:
    victim = data.draw(st.integers(0, len(plan.chunks) - 1))
    mutated = _with(plan, [c for i, c in enumerate(plan.chunks) if i != victim])
    with pytest.raises(PlanError):
        verify_plan(mutated)


@FAST
@given(template_plans(), st.data())
def test_duplicating_any_chunk_is_caught(plan: Plan, data: st.DataObject) -> None:
    victim = plan.chunks[data.draw(st.integers(0, len(plan.chunks) - 1))]
    copy = dataclasses.replace(victim, id=max(c.id for c in plan.chunks) + 1)
    with pytest.raises(PlanError):
        verify_plan(_with(plan, [*plan.chunks, copy]))


@FAST
@given(template_plans(min_world=2), st.data())
def test_swapping_ranks_of_a_moving_chunk_is_caught(plan: Plan, data: st.DataObject) -> None:
    moving = [i for i, c in enumerate(plan.chunks) if not c.is_local]
    i = data.draw(st.sampled_from(moving))
    c = plan.chunks[i]
    swapped = dataclasses.replace(c, src=c.dst, dst=c.src)
    chunks = list(plan.chunks)
    chunks[i] = swapped
    with pytest.raises(PlanError):
        verify_plan(_with(plan, chunks))


@FAST
@given(template_plans(min_world=3), st.data())
def test_redirecting_a_chunk_is_caught(plan: Plan, data: st.DataObject) -> None:
    """Sending a moving chunk to a third rank breaks gathers and all-to-all.

    (Not reductions: sending a partial sum straight to a later rank of the
    ring can be another valid reduce-scatter schedule, and the verifier
    rightly accepts it -- see test_valid_redirected_reduction_is_accepted.)
    """
    if plan.kind in ("reduce-scatter", "all-reduce"):
        return
    moving = [i for i, c in enumerate(plan.chunks) if not c.is_local]
    i = data.draw(st.sampled_from(moving))
    c = plan.chunks[i]
    others = [r for r in range(plan.world) if r not in (c.src, c.dst)]
    chunks = list(plan.chunks)
    chunks[i] = dataclasses.replace(c, dst=data.draw(st.sampled_from(others)))
    with pytest.raises(PlanError):
        verify_plan(_with(plan, chunks))


def test_out_of_range_rank_is_named() -> None:
    plan = instantiate(TemplateOptions(kind="all-gather", world=2, size=8))
    bad = dataclasses.replace(plan.chunks[-1], dst=5)
    with pytest.raises(PlanError, match=r"chunk 3 .*dst rank 5 is outside \[0, 2\)"):
        verify_plan(_with(plan, [*plan.chunks[:-1], bad]))


def test_forwarding_before_arrival_is_named() -> None:
    plan = instantiate(TemplateOptions(kind="all-gather", world=3, size=9))
    # ring step 1 forwards what arrived at step 0; move a forward to step 0
    fwd = next(c for c in plan.chunks if c.step == 1)
    early = dataclasses.replace(fwd, step=0)
    chunks = [early if c.id == fwd.id else c for c in plan.chunks]
    with pytest.raises(PlanError, match=rf"chunk {fwd.id} .*does not hold it before that step"):
        verify_plan(_with(plan, chunks))


def test_valid_redirected_reduction_is_accepted() -> None:
    plan = instantiate(TemplateOptions(kind="reduce-scatter", world=3, size=3))
    # rank 0 sends its partial of block 2 straight to rank 2 instead of via rank 1
    first = next(c for c in plan.chunks if (c.src, c.dst, c.step) == (0, 1, 0))
    chunks = [dataclasses.replace(c, dst=2) if c.id == first.id else c for c in plan.chunks]
    verify_plan(_with(plan, chunks))


def test_double_counted_partial_is_named() -> None:
    plan = instantiate(TemplateOptions(kind="reduce-scatter", world=2, size=4))
    moving = next(c for c in plan.chunks if not c.is_local)
    again = dataclasses.replace(moving, id=99, step=moving.step + 1)
    with pytest.raises(PlanError, match=r"chunk 99 .*counted twice"):
        verify_plan(_with(plan, [*plan.chunks, again]))
