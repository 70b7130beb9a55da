"""Gathers whose rows come from a loaded table (MoE routing): each tile
waits for the range [min, max + 1) of the row ids it loaded
(ir/analysis/loaded_rows.py). Checked numerically under every delivery
order, the tile-isolated one included (a tile sees only the chunks it
waited for)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.sim.delivery import DELIVERY_ORDERS
from syncopate.runtime.harness.workload import load_workload

WORKLOAD = load_workload(str(Path(__file__).resolve().parents[1] / "workloads" / "moe_topk_gather.py"))


@pytest.mark.parametrize("world", [2, 3, 4])
def test_routed_rows_are_gathered_correctly_under_every_delivery(world):
    program = compile_workload(WORKLOAD, world)
    for order in DELIVERY_ORDERS:
        results = run_simulated(WORKLOAD, world, order, 0, program)
        assert all(r.ok for r in results), (order, [(r.rank, r.max_error) for r in results])
        assert sum(r.polls for r in results) > 0, (order, "the fused kernel never waited")


def test_the_wait_spans_the_loaded_ids():
    source = compile_workload(WORKLOAD, 2).source
    assert ".to(tl.int64)" in source and "tl.min(" in source and "tl.max(" in source, source


def test_a_program_that_reads_one_row_waits_for_that_row(monkeypatch):
    """Every slot of a program routes to one token: the range is exactly one
    row, so a wait one row short would wait for nothing, which the isolated
    delivery shows as poisoned rows."""
    module = WORKLOAD.module
    original = module.make_inputs

    def one_token_per_program(rank, world, seed):
        inputs = original(rank, world, seed)
        slot = torch.arange(inputs["sorted_ids"].numel())
        token = (module.TOKENS - 1 - slot // module.BLOCK_T) % module.TOKENS
        inputs["sorted_ids"] = (token * module.TOP_K + slot % module.TOP_K).to(torch.int32)
        return inputs

    monkeypatch.setattr(module, "make_inputs", one_token_per_program)
    program = compile_workload(WORKLOAD, 3)
    results = run_simulated(WORKLOAD, 3, "isolated", 0, program)
    assert all(r.ok for r in results), [(r.rank, r.max_error) for r in results]
