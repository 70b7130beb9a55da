"""Template shapes, tiling, spec parsing and porting."""

from __future__ import annotations

import re

import pytest

from syncopate.ir.plans.errors import PlanError
from syncopate.ir.plans.expr import evaluate
from syncopate.ir.plans.port import Partial, Replicate, Shard, collective_for, parse_placement, port
from syncopate.ir.plans.spec import plan_from_spec
from syncopate.ir.plans.tiling import tile


@pytest.mark.parametrize("extent", [0, 1, 7, 10, 64, "M", "2*K"])
@pytest.mark.parametrize("n", [1, 3, 8])
def test_tile_is_exact(extent, n) -> None:
    for value in (1, 5, 17, 64):
        env = {"M": value, "K": value}
        pieces = [(evaluate(o, env), evaluate(s, env)) for o, s in tile(extent, n)]
        total = evaluate(extent, env)
        assert pieces[0][0] == 0
        for (o1, s1), (o2, _) in zip(pieces, pieces[1:]):
            assert o1 + s1 == o2
        assert pieces[-1][0] + pieces[-1][1] == total
        assert all(s >= 0 for _, s in pieces)


def test_concrete_uneven_size_last_rank_takes_the_rest() -> None:
    plan = plan_from_spec("all-gather{world=4 size=10}")
    local = sorted((c.offset, c.size) for c in plan.chunks if c.is_local)
    assert local == [(0, 2), (2, 2), (4, 2), (6, 4)]


@pytest.mark.parametrize(
    "spec,kind,count",
    [
        ("all-gather{world=4 size=16}", "all-gather", 4 + 4 * 3),
        ("all-gather{world=4 size=16 chunks_per_rank=2 order=direct}", "all-gather", 8 + 8 * 3),
        ("reduce-scatter{world=3}", "reduce-scatter", 3 + 3 * 2),
        ("all-reduce{world=4 size=8}", "all-reduce", 4 + 2 * 4 * 3),
        ("all-to-all{world=3 splits=1,2,3}", "all-to-all", 9),
        ("ring-exchange{world=2 size=M}", "ring-exchange", 2 + 2),
        ("port{from=\"Shard(0)\" to=\"Replicate()\" world=4}", "all-gather", 16),
        ("port{from=partial to=shard-1 world=2}", "reduce-scatter", 4),
    ],
)
def test_spec_expands(spec, kind, count) -> None:
    plan = plan_from_spec(spec)
    assert plan.kind == kind
    assert len(plan.chunks) == count


@pytest.mark.parametrize(
    "spec,message",
    [
        ("all-gather", "missing required option 'world'"),
        ("all-gather{world=2 colour=red}", "unknown option"),
        ("all-gather{world=2 order=zigzag}", "unknown order 'zigzag'"),
        ("all-gather{world=x}", "option 'world' expects one integer"),
        ("broadcast{world=2}", "unknown plan template 'broadcast'"),
        ("all-gather{world=2 size=M/2}", "quote values"),
        ("all-to-all{world=3 splits=1,2}", "needs W = 3 or W\\*W = 9 sizes"),
        ("port{from=replicate to=shard-0 world=2}", "Supported: Shard\\(d\\) -> Replicate\\(\\)"),
        ("port{from=\"Shard(0)\" to=\"Shard(0)\" world=2}", "cannot port Shard\\(0\\) -> Shard\\(0\\)"),
        ("port{from=bogus to=replicate world=2}", "unknown placement 'bogus'"),
        # bounds: a dim past 15 named every dim up to it (dim=100000 ran for minutes)
        ("all-gather{world=2 dim=100000}", "dim=100000 is beyond the dims a plan's tensor may have \\(at most 16"),
        ("port{from=\"Shard(99999)\" to=\"Replicate()\" world=2}", "dim=99999 is beyond the dims"),
        ("all-gather{world=2 size=\"" + "+".join(["M"] * 1200) + "\"}", "has 1200 terms; an extent may have at most 32"),
        ("all-to-all{world=2 splits=\"" + "+".join(["M"] * 40) + "\",1,1,1}", "has 40 terms"),
        ("port{from=\"Shard(0)\" to=\"Replicate()\" world=2 size=\"" + "-" * 3000 + "M\"}", "nested too deeply"),
    ],
)
def test_bad_specs_raise_plan_error(spec, message) -> None:
    with pytest.raises(PlanError, match=message):
        plan_from_spec(spec)


def test_placements_and_pairs() -> None:
    assert parse_placement("Shard(2)") == Shard(2)
    assert parse_placement("S1") == Shard(1)
    assert parse_placement("shard-3") == Shard(3)
    assert parse_placement("R") == Replicate()
    assert parse_placement("Partial()") == Partial()
    assert collective_for(Shard(1), Replicate()) == ("all-gather", 1)
    assert collective_for(Partial(), Shard(0)) == ("reduce-scatter", 0)
    assert collective_for(Partial(), Replicate()) == ("all-reduce", 0)
    assert collective_for(Shard(0), Shard(1)) == ("all-to-all", 0)
    assert port(Shard(1), Replicate(), world=2, tensor="b").chunks[0].dim == 1


@pytest.mark.parametrize("collective", ["all-gather", "reduce-scatter"])
@pytest.mark.parametrize("world", [2, 3, 4])
@pytest.mark.parametrize("per_rank", [1, 2, 3])
def test_a_ranks_pieces_cover_exactly_its_workload_shard(collective: str, world: int, per_rank: int):
    """With a symbolic size that does not divide by W * chunks_per_rank
    (M = 50 at W = 2 and 2 chunks per rank: shards 25 + 25, not 12 + 12 +
    12 + 14), rank r's own pieces are exactly the rows shard_bounds gives it,
    which is where the workloads put rank r's data."""
    from syncopate.ir.analysis import deps
    from syncopate.ir.context import make_context
    from syncopate.ir.plans.cli import load_plans
    from syncopate.runtime.harness.workload import shard_bounds

    plan = load_plans([f"{collective}{{tensor=a_ptr dim=0 world={world} chunks_per_rank={per_rank}}}"],
                      make_context())[0]
    for m in (50, 61, 64, 7 * world * per_rank + 5):
        local = deps.concrete_chunks(plan, {"M": m}, 0)
        for r in range(world):
            mine = sorted((c.lo, c.hi) for c in local if c.is_local and c.dst == r)
            start, size = shard_bounds(m, world, r)
            assert mine[0][0] == start and mine[-1][1] == start + size, (m, r, mine)
            assert all(a[1] == b[0] for a, b in zip(mine, mine[1:]))  # contiguous pieces


@pytest.mark.parametrize("spec, message", [
    ("all-gather{tensor=a_ptr dim=0 world=2 world=3}", "option 'world' is given twice"),
    ("all-gather{tensor=a_ptr dim=0 chunks-per-rank=2 world=2 chunks_per_rank=3}",
     "option 'chunks_per_rank' is given twice"),
    ("all-gather{tensor=a_ptr dim=0 world=2}}", "unexpected text after the closing brace: '}'"),
    ("all-gather{tensor=a_ptr dim=0 world=2} extra", "unexpected text after the closing brace: 'extra'"),
    ("all-gather{tensor=a_ptr dim=0 world=4 chunks_per_rank=4096}", "is more chunks than a plan may have"),
])
def test_specs_xdsl_would_take_silently_are_refused(spec, message):
    """xDSL's option parser keeps the last of two equal keys and stops at the
    first closing brace; a plan spec must not mean something else quietly."""
    with pytest.raises(PlanError, match=re.escape(message)):
        plan_from_spec(spec)


def test_quoted_values_may_hold_braces_and_equals():
    from syncopate.ir.plans.spec import _check_shape

    _check_shape('port{tensor=a from="x=1}" to="Shard(0)" world=2}')  # neither a key nor the end


@pytest.mark.parametrize("world", [2, 3, 4])
@pytest.mark.parametrize("blocks", [2, 3])
@pytest.mark.parametrize("per_rank", [1, 2])
@pytest.mark.parametrize("order", ["ring", "direct"])
def test_a_blocked_reduce_scatter_gives_each_rank_its_slice_of_every_block(world, blocks, per_rank, order):
    """``blocks=``: the rows are that many blocks (a [b, s, n] tensor's b*s
    rows), each cut over the ranks by the row rule; rank r owns the r-th
    slice of every block, its slice of s, where A's rows already are. The
    plan verifies, symbolic and literal, and both give the same rows."""
    from syncopate.ir.analysis import deps
    from syncopate.ir.context import make_context
    from syncopate.ir.plans.cli import load_plans
    from syncopate.runtime.harness.workload import shard_bounds

    spec = f"reduce-scatter{{tensor=c_ptr dim=0 world={world} blocks={blocks} chunks_per_rank={per_rank} order={order}}}"
    symbolic = load_plans([spec], make_context())[0]
    for seq in (world * per_rank, 8 * world, 13 * world + 1):  # a block that does not divide too
        m = blocks * seq
        literal = load_plans([spec[:-1] + f" size={m}}}"], make_context())[0]
        for plan in (symbolic, literal):
            chunks = deps.concrete_chunks(plan, {"M": m}, 0)
            assert len(chunks) == world * world * blocks * per_rank
            for r in range(world):
                start, size = shard_bounds(seq, world, r)
                want = [(i * seq + start, i * seq + start + size) for i in range(blocks)]
                mine = sorted((c.lo, c.hi) for c in chunks if c.is_local and c.dst == r)
                merged = []  # a rank's pieces of one block are adjacent
                for lo, hi in mine:
                    if merged and merged[-1][1] == lo:
                        lo = merged.pop()[0]
                    merged.append((lo, hi))
                assert merged == want, (plan is literal, m, r)


def test_one_block_is_the_plan_without_blocks():
    assert plan_from_spec("reduce-scatter{world=3 blocks=1 chunks_per_rank=2}") == \
        plan_from_spec("reduce-scatter{world=3 chunks_per_rank=2}")


@pytest.mark.parametrize("spec, message", [
    ("all-gather{world=2 blocks=2}", "all-gather: 'blocks' is only for reduce-scatter"),
    ("all-reduce{world=2 blocks=2}", "all-reduce: 'blocks' is only for reduce-scatter"),
    ("reduce-scatter{world=2 blocks=0}", "blocks must be >= 1, got 0"),
    ("reduce-scatter{world=4 blocks=3 size=10}", "world=4 x blocks=3 is more shards than the 10 rows"),
    ("reduce-scatter{world=8 blocks=513 chunks_per_rank=2}", "x blocks=513 is more chunks than a plan may have"),
])
def test_blocks_out_of_reach_are_refused(spec, message):
    with pytest.raises(PlanError, match=re.escape(message)):
        plan_from_spec(spec)


@pytest.mark.parametrize("spec, typed", [
    ("all-gather{world=4 tensor=a_ptr size=\"2*K\" chunks_per_rank=2}",
     dict(kind="all-gather", world=4, tensor="a_ptr", size="2*K", chunks_per_rank=2)),
    ("all-to-all{world=2 splits=1,2,3,4 name=x}", dict(kind="all-to-all", world=2, splits=(1, 2, 3, 4), name="x")),
    ("reduce-scatter{world=3 size=10 order=direct}", dict(kind="reduce-scatter", world=3, size=10, order="direct")),
])
def test_typed_template_options_build_the_plan_their_spec_builds(spec, typed) -> None:
    """The typed path (what the bench uses) and ``--plan`` text agree, and
    ``load`` takes either."""
    from syncopate.ir.plans.load import load
    from syncopate.ir.plans.templates import instantiate, template

    options = template(typed.pop("kind"), typed.pop("world"), **typed)
    assert instantiate(options) == plan_from_spec(spec)
    assert str(load(options)) == str(load(spec))


def test_typed_template_options_are_checked_as_a_spec_is() -> None:
    from syncopate.ir.plans.templates import template

    with pytest.raises(PlanError, match="unknown plan template 'all-gathr'"):
        template("all-gathr", 2)
    with pytest.raises(PlanError, match="chunks_per_rank must be >= 1"):
        template("all-gather", 2, chunks_per_rank=0)
