"""The ce reduce-scatter's schedule in the GPU World (pure functions, no
GPU): each rank sends its partial rows in departure order, and the owner
sums the staged partials in the order they are sent to it."""

import pytest

from syncopate.ir.analysis import deps
from syncopate.ir.context import make_context
from syncopate.ir.plans.cli import load_plans
from syncopate.runtime.gpu.flags import FLAG_CAPACITY
from syncopate.runtime.gpu.reduce_scatter import arrival_order as _arrival_order
from syncopate.runtime.gpu.reduce_scatter import send_order as _send_order
from syncopate.runtime.staging import StagingLayout, owner_regions


def plan_and_chunks(order: str, world: int = 4, per_rank: int = 1):
    """A reduce-scatter plan of 16-row chunks and its chunks."""
    spec = f"reduce-scatter{{tensor=c_ptr dim=0 world={world} order={order} chunks_per_rank={per_rank}}}"
    plan = load_plans([spec], make_context())[0]
    return plan, deps.concrete_chunks(plan, {"M": 16 * world * per_rank}, 0)


def chunks(order: str, world: int = 4, per_rank: int = 1):
    return plan_and_chunks(order, world, per_rank)[1]


@pytest.mark.parametrize("order, first_peer", [("ring", -1), ("direct", +1)])
def test_every_rank_sends_to_a_different_peer_at_each_step(order: str, first_peer: int):
    cs = chunks(order)
    regions = owner_regions(cs)
    sends = {r: [x.dst for x in _send_order(cs, regions, r)] for r in range(4)}
    for r in range(4):
        assert sorted(sends[r]) == [p for p in range(4) if p != r]  # every peer once, never itself
        assert sends[r][0] == (r + first_peer) % 4
    for step in range(3):  # a permutation at every step: no peer gets two partials at once
        assert sorted(sends[r][step] for r in range(4)) == list(range(4))


@pytest.mark.parametrize("order", ["ring", "direct"])
@pytest.mark.parametrize("per_rank", [1, 2])
def test_the_owner_sums_partials_in_the_order_peers_send_them(order: str, per_rank: int):
    cs = chunks(order, per_rank=per_rank)
    regions = owner_regions(cs)
    assert len(regions) == 4 * per_rank
    for piece in regions:
        expected = _arrival_order(cs, regions, piece, 4)
        assert sorted(expected) == [p for p in range(4) if p != piece.dst]
        sends = {p: [(x.dst, x.lo) for x in _send_order(cs, regions, p)] for p in expected}
        position = [sends[p].index((piece.dst, piece.lo)) for p in expected]
        assert position == sorted(position)
        if per_rank == 1:
            assert position == [0, 1, 2]


def test_staging_slots_and_arrival_flags_of_pieces_never_collide():
    """With 2 chunks per rank an owner has two regions: they sit at different
    rows of a staging slot and have different arrival flags per source."""
    cs = chunks("direct", per_rank=2)
    regions = owner_regions(cs)
    layout = StagingLayout(regions, 4, FLAG_CAPACITY // 2, FLAG_CAPACITY)
    assert layout.widest == 32 and layout.pieces == 2
    for d in range(4):
        mine = [r for r in regions if r.dst == d]
        assert [(layout.slot(r), layout.slot(r) + r.hi - r.lo) for r in mine] == [(0, 16), (16, 32)]
    flags = [layout.flag(r, src) for r in regions for src in range(4) if src != r.dst]
    assert len(set(flags)) == len(flags) == 4 * 2 * 3
    assert min(flags) >= 1 << 13 and max(flags) < 1 << 14  # the upper half of the pad


@pytest.mark.parametrize("world, blocks", [(2, 3), (4, 2)])
def test_staging_slots_of_blocks_are_packed(world: int, blocks: int):
    """With blocks an owner's regions are apart (other owners' rows between
    them); its staging slot holds them back to back, as many rows as it
    owns, each region its own rows and arrival flags."""
    spec = f"reduce-scatter{{tensor=c_ptr dim=0 world={world} blocks={blocks}}}"
    plan = load_plans([spec], make_context())[0]
    regions = owner_regions(deps.concrete_chunks(plan, {"M": 16 * world * blocks}, 0))
    layout = StagingLayout(regions, world, FLAG_CAPACITY // 2, FLAG_CAPACITY)
    assert layout.widest == 16 * blocks and layout.pieces == blocks
    for d in range(world):
        mine = [r for r in regions if r.dst == d]
        assert [r.lo for r in mine] == [i * 16 * world + 16 * d for i in range(blocks)]
        assert [(layout.slot(r), layout.slot(r) + r.hi - r.lo) for r in mine] == \
            [(16 * i, 16 * (i + 1)) for i in range(blocks)]
    flags = [layout.flag(r, src) for r in regions for src in range(world) if src != r.dst]
    assert len(set(flags)) == len(flags) == world * blocks * (world - 1)
