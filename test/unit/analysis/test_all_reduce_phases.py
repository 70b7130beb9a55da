"""An all-reduce plan's two phases (ir/analysis/deps.kernel_chunks): the
fused kernel takes part in the reduction to the rows' owners only; the
gather of the owners' summed rows is the runtime's, after the sums."""

from __future__ import annotations

import pytest

from syncopate.ir.analysis import deps
from syncopate.ir.context import make_context
from syncopate.ir.plans.cli import load_plans


def _plan(spec: str):
    return load_plans([spec], make_context())[0]


def _moves(chunks):
    return sorted((c.src, c.dst, c.step, c.lo, c.hi) for c in chunks)


@pytest.mark.parametrize("world", [2, 3, 4])
@pytest.mark.parametrize("order", ["direct", "ring"])
@pytest.mark.parametrize("per_rank", [1, 2])
def test_the_kernel_takes_the_reduce_scatters_chunks(world, order, per_rank):
    """The kernel's chunks of an all-reduce are those of the reduce-scatter
    with the same options: the local ones and every move of a partial,
    none of the moves of summed rows."""
    options = f"tensor=c_ptr dim=0 world={world} order={order} chunks_per_rank={per_rank}"
    env = {"M": 16 * world * per_rank + 5}
    ar = _plan(f"all-reduce{{{options}}}")
    rs = _plan(f"reduce-scatter{{{options}}}")
    mine = deps.kernel_chunks(ar, env, 0)
    assert _moves(mine) == _moves(deps.concrete_chunks(rs, env, 0))
    everything = deps.concrete_chunks(ar, env, 0)
    assert len(everything) > len(mine)  # the gather phase is there, for the runtime
    assert deps.reduced_gather_step(everything) == (world - 1) * per_rank
    gathered = [c for c in everything if c not in mine]
    assert all(c.step >= (world - 1) * per_rank and not c.is_local for c in gathered)


def test_other_collectives_keep_every_chunk():
    for spec in ("reduce-scatter{tensor=c_ptr dim=0 world=3}", "all-gather{tensor=a_ptr dim=0 world=3}"):
        plan = _plan(spec)
        assert deps.kernel_chunks(plan, {"M": 48}, 0) == deps.concrete_chunks(plan, {"M": 48}, 0)


def test_a_plan_that_never_sends_summed_rows_names_the_gap():
    rs = deps.concrete_chunks(_plan("reduce-scatter{tensor=c_ptr dim=0 world=3}"), {"M": 48}, 0)
    with pytest.raises(ValueError, match="no chunk sends an owner's summed rows"):
        deps.reduced_gather_step(rs)


def test_a_world_of_one_has_no_gather_phase():
    plan = _plan("all-reduce{tensor=c_ptr dim=0 world=1}")
    chunks = deps.concrete_chunks(plan, {"M": 48}, 0)
    assert chunks and all(c.is_local for c in chunks)
    assert deps.kernel_chunks(plan, {"M": 48}, 0) == chunks
