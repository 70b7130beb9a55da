"""The paper's remaining workloads (issue 36, item 6) on simulated ranks:
the MoE combine (with a2a_grouped_gemm.py's dispatch, the MoE layer),
Ulysses attention (both all-to-alls) and ring attention (ring-exchange K/V).

Each fused kernel equals its unfused reference at W = 2 and 3 under every
delivery order, the isolated one included (W = 4 with
SYNCOPATE_FULL_MATRIX=1, as test_simulated_ranks does); and each
example's single-GPU program, fed what its collective delivers, computes
the layer it claims, against torch."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.harness.workload import load_workload, shard_bounds
from syncopate.runtime.sim.delivery import DELIVERY_ORDERS

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
NAMES = ["moe_combine", "ulysses_attention", "ulysses_out_proj", "ring_attention"]
FULL_MATRIX = os.environ.get("SYNCOPATE_FULL_MATRIX") == "1"
WORLDS = (2, 3, 4) if FULL_MATRIX else (2, 3)


def _workload(name: str):
    return load_workload(str(EXAMPLES / f"{name}.py"))


@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("name", NAMES)
def test_fused_matches_reference_under_every_delivery_order(name: str, world: int):
    workload = _workload(name)
    program = compile_workload(workload, world)
    for order in DELIVERY_ORDERS:
        results = run_simulated(workload, world, order, seed=world, program=program)
        bad = [(r.rank, r.max_error) for r in results if not r.ok]
        assert len(results) == world and not bad, f"{name} W={world} delivery={order}: mismatching ranks {bad}"


def test_ring_exchange_tiles_wait_per_shard():
    """Ring attention waits inside its K/V loop (per block), not once for
    the whole K/V: a tile starts on its own shard before the others arrive."""
    program = compile_workload(_workload("ring_attention"), 3)
    assert program.source.count("syn_wait_span_loop(syn_flags") == 2


def _a2a(sends: list[torch.Tensor], splits: list[list[int]], dim: int) -> list[torch.Tensor]:
    """What rank r receives: each source's block for r, in source order."""
    world = len(sends)
    out = []
    for r in range(world):
        blocks = [sends[s].narrow(dim, sum(splits[s][:r]), splits[s][r]) for s in range(world)]
        out.append(torch.cat(blocks, dim=dim))
    return out


@pytest.mark.parametrize("world", [2, 3])
def test_moe_combine_is_the_weighted_sum_of_each_tokens_expert_rows(world: int):
    wl = _workload("moe_combine")
    m = wl.module
    inputs = [wl.make_inputs(r, world, 1) for r in range(world)]
    back = [[m.dispatch_splits(world)[d][s] for d in range(world)] for s in range(world)]
    received = _a2a([i["y"] for i in inputs], back, 0)
    for r in range(world):
        idx, gate = inputs[r]["idx"].long(), inputs[r]["gate"]
        expected = (gate[:, :, None] * received[r][idx]).sum(1)
        torch.testing.assert_close(wl.launch(wl.kernel, received[r], inputs[r]["idx"], gate), expected)


@pytest.mark.parametrize("world", [2, 3])
def test_ulysses_round_trip_is_multi_head_attention_then_the_projection(world: int):
    """Sequence-sharded Q/K/V -> all-to-all -> attention per local head ->
    all-to-all back -> output projection, equals torch's attention over the
    whole sequence and every head, then O @ W_o, on each rank's rows."""
    att, proj = _workload("ulysses_attention"), _workload("ulysses_out_proj")
    a, p = att.module, proj.module
    seq, hl, d = a.SEQ_LEN, a.HEADS_LOCAL, a.HEAD_DIM
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(seq, world * hl, d, generator=g) for _ in range(3))
    w_o = torch.randn(world * hl * d, 24, generator=g)
    rows = [shard_bounds(seq, world, r) for r in range(world)]
    splits = a.splits(world)
    gathered = [_a2a([a.sequence_to_heads(x[s0:s0 + n], world) for s0, n in rows], splits, 0) for x in (q, k, v)]
    outs = [att.launch(att.kernel, gathered[0][r], gathered[1][r], gathered[2][r]) for r in range(world)]
    width = hl * d
    sends = [p.heads_to_sequence(o.reshape(seq, width), world) for o in outs]
    o_rows = _a2a(sends, [[width] * world] * world, 1)
    ref = torch.nn.functional.scaled_dot_product_attention(q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1))
    ref = ref.transpose(0, 1).reshape(seq, world * width) @ w_o
    for r, (s0, n) in enumerate(rows):
        torch.testing.assert_close(proj.launch(proj.kernel, o_rows[r], w_o), ref[s0:s0 + n], atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("first", [0, 1, 2])
def test_ring_attention_in_any_ring_order_is_attention(first: int):
    wl = _workload("ring_attention")
    m = wl.module
    g = torch.Generator().manual_seed(5)
    q = torch.randn(m.S_Q, m.HEADS, m.HEAD_DIM, generator=g)
    k, v = (torch.randn(m.S_KV, m.KV_HEADS, m.HEAD_DIM, generator=g) for _ in range(2))
    ref = torch.nn.functional.scaled_dot_product_attention(q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1),
                                                           enable_gqa=True).transpose(0, 1)
    torch.testing.assert_close(wl.launch(wl.kernel, q, k, v, first, 3), ref, atol=1e-5, rtol=1e-4)
