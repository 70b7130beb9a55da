"""One rule cuts rows (docs/plans.md, "Cutting rows"): N rows over W ranks
are N // W per rank, the last rank the rest. The plan templates (with a
literal size and with a symbolic one bound at launch), the workloads'
``shard_bounds`` and the runtime's check of each rank's input must agree on
it, or a workload cut by ``shard_bounds`` is refused at launch (or, worse,
two plans of one size disagree)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from syncopate.ir.analysis.deps import concrete_chunks
from syncopate.ir.context import make_context
from syncopate.ir.plans.cli import load_plans
from syncopate.runtime.abi import AbiError, check_shards
from syncopate.runtime.workload import shard_bounds

ODD_SIZES = (5, 7, 9, 11, 13, 37)


def _owned(spec: str, env: dict[str, int], world: int, chunks_per_rank: int = 1) -> list[tuple[int, int]]:
    """(start, size) of each rank's own rows in the plan ``spec`` evaluated at ``env``."""
    plan = load_plans([spec], make_context())[0]
    chunks = concrete_chunks(plan, env, 0)
    owned = []
    for r in range(world):
        mine = sorted((c.lo, c.hi) for c in chunks if c.src == c.dst == r)
        assert 1 <= len(mine) <= chunks_per_rank  # a piece of no rows has no chunk
        assert all(a[1] == b[0] for a, b in zip(mine, mine[1:])), f"rank {r}'s pieces are not contiguous: {mine}"
        owned.append((mine[0][0], mine[-1][1] - mine[0][0]))
    return owned


@pytest.mark.parametrize("world", (2, 3, 4))
@pytest.mark.parametrize("rows", ODD_SIZES)
@pytest.mark.parametrize("chunks_per_rank", (1, 2))
def test_templates_shard_bounds_and_runtime_agree(rows: int, world: int, chunks_per_rank: int):
    bounds = [shard_bounds(rows, world, r) for r in range(world)]
    assert bounds[0] == (0, rows // world) and bounds[-1][1] == rows - (world - 1) * (rows // world)
    literal = _owned(f"all-gather{{world={world} size={rows} chunks_per_rank={chunks_per_rank}}}", {}, world,
                     chunks_per_rank)
    symbolic = _owned(f"all-gather{{world={world} size=M chunks_per_rank={chunks_per_rank}}}", {"M": rows}, world,
                      chunks_per_rank)
    assert literal == bounds, f"{rows} rows at W={world}: size={rows} gives {literal}, shard_bounds {bounds}"
    assert symbolic == bounds, f"{rows} rows at W={world}: size=M gives {symbolic}, shard_bounds {bounds}"
    for spec, env in ((f"all-gather{{world={world} size={rows}}}", {}), (f"all-gather{{world={world} size=M}}", {"M": rows})):
        plan = load_plans([spec], make_context())[0]
        launch = SimpleNamespace(plans={"ag": plan}, chunks={"ag": concrete_chunks(plan, env, 0)})
        check_shards(launch, {"a_ptr": ("x", bounds)})  # the runtime accepts inputs cut by shard_bounds


def test_nine_rows_at_two_ranks_are_four_then_five():
    assert [shard_bounds(9, 2, r) for r in range(2)] == [(0, 4), (4, 5)]
    assert _owned("all-gather{world=2 size=9}", {}, 2) == [(0, 4), (4, 5)]


def test_a_mismatch_names_the_rule_and_the_helper():
    plan = load_plans(["all-gather{world=2 size=9}"], make_context())[0]
    launch = SimpleNamespace(plans={"ag": plan}, chunks={"ag": concrete_chunks(plan, {}, 0)})
    with pytest.raises(AbiError) as error:
        check_shards(launch, {"a_ptr": ("x", [(0, 5), (5, 4)])})
    message = str(error.value)
    assert "rank 0's input 'x' has 5 rows" in message and "gives rank 0 4 rows [0, 4)" in message
    assert "N // W rows per rank, the last rank the rest" in message and "shard_bounds" in message
