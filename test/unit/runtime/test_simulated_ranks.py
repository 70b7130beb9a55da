"""End to end on simulated ranks: every shipped workload, fused by the overlap
pipeline, equals the unfused reference for W in {2, 3, 4} under every chunk
delivery order; and the checks can see a missing synchronisation.

W = 4 is the slowest part of the suite: by default it runs for a
representative subset (one gather, one reduce-scatter, the attention
gather); SYNCOPATE_FULL_MATRIX=1 runs it for every workload.

(These run the Triton interpreter, so they live under test/unit, whose
conftest selects it before any kernel is imported.)
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
import torch
from xdsl.builder import Builder, InsertPoint

from syncopate.dialects import tile
from syncopate.dialects.chunk import SignalSpanOp
from syncopate.ir.analysis import deps
from syncopate.ir.context import make_context
from syncopate.ir.frontend.triton_import import import_file
from syncopate.ir.plans.cli import load_plans
from syncopate.runtime.harness import check
from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.lowering.compile import run_pipeline
from syncopate.runtime.fused import FusedKernel, load_program
from syncopate.runtime.sim.delivery import DELIVERY_ORDERS, SimulationError
from syncopate.runtime.sim.world import SimWorld
from syncopate.runtime.harness.workload import load_workload

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
WORKLOADS = ["ag_gemm", "gemm_rs", "gemm_ar", "ag_gemm_k", "a2a_grouped_gemm", "attention_ag_kv", "ag_gemm_persistent",
             "gemm_rs_persistent", "gemm_rs_tma"]
GATHERS = ["ag_gemm", "ag_gemm_k", "a2a_grouped_gemm", "attention_ag_kv", "ag_gemm_persistent"]


def _workload(name: str):
    return load_workload(str(EXAMPLES / f"{name}.py"))


FULL_MATRIX = os.environ.get("SYNCOPATE_FULL_MATRIX") == "1"
WIDE = WORKLOADS if FULL_MATRIX else ["ag_gemm", "gemm_rs", "gemm_ar", "attention_ag_kv"]  # the W = 4 cases
CASES = [(name, world) for name in WORKLOADS for world in (2, 3, 4) if world < 4 or name in WIDE]


@pytest.mark.parametrize(("name", "world"), CASES)
def test_fused_matches_reference_under_every_delivery_order(name: str, world: int):
    workload = _workload(name)
    program = compile_workload(workload, world)
    for order in DELIVERY_ORDERS:
        results = run_simulated(workload, world, order, seed=world, program=program)
        assert len(results) == world
        bad = [(r.rank, r.max_error) for r in results if not r.ok]
        assert not bad, f"{name} W={world} delivery={order}: mismatching ranks {bad}"


@pytest.mark.parametrize("world", [2, 3])
@pytest.mark.parametrize("extra", [" blocks=2", " blocks=3 order=direct chunks_per_rank=2"])
def test_a_blocked_reduce_scatter_matches_under_every_delivery_order(world: int, extra: str):
    """gemm_rs with its rows as blocks (a [b, s, n] output scattered on s):
    every rank's slices of every block hold the sum, however chunks arrive."""
    workload = _workload("gemm_rs")
    program = compile_workload(workload, world, plan_specs=[f"reduce-scatter{{tensor=c_ptr dim=0{extra}}}"])
    for order in DELIVERY_ORDERS:
        results = run_simulated(workload, world, order, seed=world, program=program)
        bad = [(r.rank, r.max_error) for r in results if not r.ok]
        assert len(results) == world and not bad, f"W={world}{extra} delivery={order}: mismatching ranks {bad}"


@pytest.mark.parametrize("name", GATHERS)
def test_missing_waits_are_caught_by_late_delivery(name: str):
    workload = _workload(name)
    program = compile_workload(workload, 3, "overlap{waits=false}")
    assert "syn_wait_span(" not in program.source
    results = run_simulated(workload, 3, "late", program=program, sanitize=False)
    assert any(not r.ok for r in results)
    assert any(math.isnan(r.max_error) for r in results), "poisoned rows should reach the output"
    with pytest.raises(SimulationError, match="without waiting for it"):
        run_simulated(workload, 3, "late", program=program)


@pytest.mark.parametrize("order", ["arrival", "rotate"])
def test_reordered_tiles_without_waits_fail(order: str):
    workload = _workload("ag_gemm")
    program = compile_workload(workload, 4, f"overlap{{waits=false order={order}}}")
    assert not all(r.ok for r in run_simulated(workload, 4, "late", program=program, sanitize=False))
    with pytest.raises(SimulationError, match="without waiting for it"):
        run_simulated(workload, 4, "late", program=program)


def test_an_all_reduce_leaves_every_rank_all_of_the_sum():
    """Every rank's result covers every row (an owner's rows on each rank),
    and a kernel that announces the rows summed rows too (the whole plan's
    chunks, not its reduction phase) counts partials twice and is caught."""
    workload = _workload("gemm_ar")
    program = compile_workload(workload, 3)
    results = run_simulated(workload, 3, "random", seed=1, program=program)
    assert all(r.ok for r in results)
    from syncopate.ir.analysis import deps

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(deps, "kernel_chunks", deps.concrete_chunks)
        wrong = compile_workload(workload, 3)
        assert not all(r.ok for r in run_simulated(workload, 3, "plan", seed=1, program=wrong, sanitize=False))


@pytest.mark.parametrize("name", ["gemm_rs", "gemm_ar"])
def test_missing_signals_are_reported(name):
    workload = _workload(name)
    program = compile_workload(workload, 2, "overlap{signals=false}")
    with pytest.raises(SimulationError, match="never announced complete"):
        run_simulated(workload, 2, "plan", program=program)


def _early_signal_program(world: int):
    """gemm_rs with each signal moved before the store it announces."""
    workload = _workload("gemm_rs")
    module = import_file(workload.path)
    for plan in load_plans(workload.plan_specs(world), make_context()):
        module.body.block.add_op(plan)
    run_pipeline(module, "chunk-dependency-analysis,insert-signals")
    for signal in [op for op in module.walk() if isinstance(op, SignalSpanOp)]:
        store = next(op for op in module.walk() if isinstance(op, tile.StoreOp))
        lo_def = signal.lo.owner
        signal.detach()
        Builder(InsertPoint.before(store)).insert(signal)
        assert lo_def.parent_block() is store.parent_block()
    run_pipeline(module, "lower-chunk-to-tile")
    return workload, load_program(module, "gemm_rs_kernel")


def test_early_signals_are_caught():
    workload, program = _early_signal_program(2)
    results = run_simulated(workload, 2, "plan", program=program, sanitize=False)
    assert not all(r.ok for r in results)
    with pytest.raises(SimulationError, match="announce"):  # each store follows its tile's signal
        run_simulated(workload, 2, "plan", program=program)


def test_back_to_back_launches_need_no_reset():
    """Epoch-numbered flags: a second launch on the same signal pads must wait
    for fresh chunks (stale flags from launch 1 are below epoch 2)."""
    workload = _workload("ag_gemm")
    program = compile_workload(workload, 2)
    sim = SimWorld(2, "late")
    inputs = [workload.make_inputs(r, 2, 5) for r in range(2)]
    full = torch.cat([i["a"] for i in inputs])
    for launch_no in (1, 2):
        for r in range(2):
            kernel = FusedKernel(program, workload.kernel, sim.rank(r, {"a_ptr": full}))
            out = workload.launch(kernel, a=full.clone(), b=inputs[r]["b"])
            torch.testing.assert_close(out, workload.launch(workload.kernel, a=full, b=inputs[r]["b"]))
            assert sim.epochs[r] == launch_no
            assert sim.launches[r][-1].polls > 0
    assert int(sim.sync[0].flags.max()) == 2


def test_dependency_graph_of_a_straddling_tile():
    """50 rows over 4 ranks (12, 12, 12, 14) with BLOCK_M=16: a shard boundary
    inside a tile links it to two chunks; the tile order follows arrival."""
    workload = _workload("ag_gemm")
    program = compile_workload(workload, 4)  # shards of 12, 12, 12, 14 rows: tiles straddle
    env = {"M": 50, "N": 36, "K": 40, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}
    bases = {"ag": 0}
    graph = deps.tile_chunk_graph(program.module, program.kernel, env, (4, 3), 0, bases)
    reads = {pid: sorted(c[2] for c in graph.predecessors(("tile", pid))) for (_, pid) in
             [n for n in graph.nodes if n[0] == "tile"]}
    chunks = {n[2]: graph.nodes[n]["chunk"] for n in graph.nodes if n[0] == "chunk"}
    spans = {pid: [(chunks[i].lo, chunks[i].hi) for i in ids] for pid, ids in reads.items()}
    assert spans[(0, 0, 0)] == [(0, 12), (12, 24)]  # rows 0..15 straddle rank 0's and rank 1's shard
    assert spans[(3, 2, 0)] == [(36, 50)]
    assert all(graph.edges[e]["exact"] for e in graph.edges)
    order = deps.tile_order(graph, (4, 3))
    assert sorted(order) == list(range(12))
    # ring all-gather on rank 0: block 3 arrives at step 0, block 2 at 1, block 1 at 2;
    # tile row 3 needs only block 3, tile row 2 blocks 2-3, tile rows 0-1 block 1
    assert [o % 4 for o in order] == [3, 3, 3, 2, 2, 2, 0, 0, 0, 1, 1, 1]


@pytest.mark.parametrize("rank", [0, 2])
def test_reduce_scatter_tiles_run_in_departure_order(rank: int):
    """gemm_rs on 4 ranks (16 rows each, BLOCK_M=16): a rank computes the
    rows it sends at ring step 0 first, then step 1, step 2, its own rows last."""
    workload = _workload("gemm_rs")
    program = compile_workload(workload, 4)
    env = {"M": 64, "N": 40, "K": 24, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}
    graph = deps.tile_chunk_graph(program.module, program.kernel, env, (4, 3), rank, {"rs": 0})
    produced = sorted((graph.nodes[n]["chunk"] for n in graph.nodes if n[0] == "chunk" and graph.in_degree(n)),
                      key=deps.departure_rank)  # chunks some tile of this rank writes
    assert produced[-1].is_local and [c.step for c in produced[:-1]] == [0, 1, 2]
    order = deps.tile_order(graph, (4, 3))
    expected_rows = [c.lo // 16 for c in produced]
    assert [o % 4 for o in order] == [r for r in expected_rows for _ in range(3)]
    assert expected_rows[-1] == rank


def test_check_reports_mismatch_shapes():
    assert check._error(torch.zeros(2), torch.zeros(3)) == math.inf
    assert math.isnan(check._error(torch.tensor([math.nan]), torch.zeros(1)))


TALL_PERSISTENT = """
import torch
from syncopate.runtime.harness.workload import load_workload
_P = load_workload({path!r}).module
KERNEL, PLANS, COLLECTIVES = _P.KERNEL, _P.PLANS, _P.COLLECTIVES


def make_inputs(rank, world, seed):  # 64 rows of A per rank: its chunk covers 4 row tiles
    a = torch.randn(64, 16, generator=torch.Generator().manual_seed(seed * 1000 + rank))
    return {{"a": a, "b": torch.randn(16, 16, generator=torch.Generator().manual_seed(seed * 1000 + 999))}}


def launch(kernel, a, b):
    M, K = a.shape
    c = torch.empty(M, b.shape[1])
    kernel[(2,)](a, b, c, M, b.shape[1], K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                 c.stride(1), BLOCK_M=16, BLOCK_N=16, BLOCK_K=16, PROGRAMS=2)
    return c
"""


@pytest.mark.parametrize("world", [2, 3])
def test_persistent_waits_remember_the_chunk_a_program_saw_arrive(world: int, tmp_path: Path):
    """syn_wait_span_memo: a program whose next tile reads the chunk it last
    saw arrive does not poll again, and the result stays right under every
    delivery order (ag_gemm_persistent.py's kernel, 2 programs over 4 W tiles)."""
    path = tmp_path / "tall_persistent.py"
    path.write_text(TALL_PERSISTENT.format(path=str(EXAMPLES / "ag_gemm_persistent.py")))
    workload = load_workload(str(path))
    memo = compile_workload(workload, world)
    plain = compile_workload(workload, world, "overlap{memo=false}")
    assert "syn_wait_span_memo(" in memo.source and "syn_wait_span_memo(" not in plain.source
    for order in DELIVERY_ORDERS:
        with_memo = run_simulated(workload, world, order, seed=world, program=memo)
        without = run_simulated(workload, world, order, seed=world, program=plain)
        assert all(r.ok for r in with_memo + without), order
        assert sum(r.polls for r in with_memo) < sum(r.polls for r in without), order


@pytest.mark.parametrize("world", [2, 3, 4])
def test_a_rotated_reduce_scatter_computes_its_own_rows_last(world: int):
    """tile-reorder{order=rotate} on gemm_rs (16 rows per rank, BLOCK_M=16):
    each rank starts on the next rank's rows and walks forward, its own rows
    last (the departure order of a direct plan), instead of starting on them."""
    workload = _workload("gemm_rs")
    program = compile_workload(workload, world)
    env = {"M": 16 * world, "N": 40, "K": 24, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}
    for rank in range(world):
        graph = deps.tile_chunk_graph(program.module, program.kernel, env, (world, 3), rank, {"rs": 0})
        start = deps.rotation(graph, 0)
        assert start == (rank + 1) % world
        rows = [(start + p) % world for p in range(world)]  # tile rows in rotated program order
        assert rows[-1] == rank and rows[0] == (rank + 1) % world


def test_a_rotated_gather_still_starts_on_local_rows():
    workload = _workload("ag_gemm")
    program = compile_workload(workload, 4)
    env = {"M": 64, "N": 36, "K": 40, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}
    for rank in range(4):
        graph = deps.tile_chunk_graph(program.module, program.kernel, env, (4, 3), rank, {"ag": 0})
        assert deps.rotation(graph, 0) == rank
