"""overlap-bench's moe-layer, ulysses-attn and ring-attn workloads
(bench/paper_layers.py): shapes, references against an independent torch
computation, the fused rows on simulated ranks in the Triton interpreter
(the GPU World cannot run here), the no-comm rows, and the alone rows'
check of their first stage."""

import csv
import dataclasses
import os
import subprocess
import sys

import pytest
import torch
from sim_gpu import SimulatedGpu
from spec_text import same_plan

from syncopate.bench import paper_layers
from syncopate.bench.check import check_result
from syncopate.bench.configs import CPU_DEFAULT
from syncopate.bench.context import BenchWorld
from syncopate.bench.fused import fused_variants
from syncopate.bench.no_comm import no_comm_variant
from syncopate.bench.problem import OUT, BenchSpec
from syncopate.bench.shapes import MOE_LAYER, RING_ATTN, SHAPES, ULYSSES_ATTN, ShapeError, select_shapes

CPU = torch.device("cpu")
TINY = {w: next(s for s in SHAPES if s.workload == w and s.name == "cpu-tiny") for w in paper_layers.WORKLOADS}
CONFIG = paper_layers.config_for(CPU_DEFAULT, cpu=True)


def _spec(workload: str, world: int, rank: int, seed: int = 3) -> BenchSpec:
    p = paper_layers.make_problem(TINY[workload], world, rank, CPU, torch.float32, seed)
    return BenchSpec(TINY[workload], world, rank, torch.float32, CONFIG, p)


def test_shapes_and_their_split():
    assert [s.name for s in select_shapes(list(paper_layers.WORKLOADS), "cpu-tiny", 2)] == ["cpu-tiny"] * 3
    with pytest.raises(ShapeError, match="experts=2 is not divisible by W=4"):
        TINY[MOE_LAYER].check_world(4)
    with pytest.raises(ShapeError, match="heads=2 is not divisible by W=4"):
        dataclasses.replace(TINY[ULYSSES_ATTN], params=(("seq", 64), ("heads", 2), ("head_dim", 16),
                                                        ("hidden", 32))).check_world(4)
    assert TINY[RING_ATTN].label(2) == "ring attn seq=32 heads=2 kv_heads=1 head_dim=16"


@pytest.mark.parametrize("rank", [0, 1])
def test_moe_reference_is_each_tokens_experts_weighted(rank: int):
    """Token by token: out[t] = sum_k gate * x[t] @ W1[e] @ W2[e] for the
    expert e (on rank d) its k-th dispatch row goes to."""
    world = 2
    specs = [_spec(MOE_LAYER, world, r) for r in range(world)]
    d = specs[rank].problem.dims["dims"]
    i = specs[rank].problem.inputs
    x = i["send"]
    expected = torch.zeros(d.tokens, d.hidden)
    for t in range(d.tokens):
        for k in range(d.topk):
            row = int(i["idx"][t, k])
            dest, e = row // d.block, (row % d.block) // d.per_expert
            w = specs[dest].problem.inputs
            expected[t] += i["gate"][t, k] * (x[row] @ w["w1"][e] @ w["w2"][e])
    torch.testing.assert_close(specs[rank].problem.references[OUT], expected, atol=1e-4, rtol=1e-4)


def test_ulysses_reference_is_attention_over_every_head_then_the_projection():
    world, rank = 2, 1
    specs = [_spec(ULYSSES_ATTN, world, r) for r in range(world)]
    q, k, v = (torch.cat([s.problem.inputs[n] for s in specs]) for n in "qkv")
    ref = paper_layers._sdpa(q, k, v).reshape(q.shape[0], -1) @ specs[0].problem.inputs["w_o"]
    local = q.shape[0] // world
    torch.testing.assert_close(specs[rank].problem.references[OUT], ref[rank * local:(rank + 1) * local],
                               atol=1e-4, rtol=1e-4)


def _sources(spec: BenchSpec) -> dict[str, torch.Tensor]:
    """What the simulated peers deliver: each plan tensor as the rank ends up holding it."""
    i = spec.problem.inputs
    if spec.workload == MOE_LAYER:
        return {"x_ptr": i["recv"], "y_ptr": i["back"]}
    if spec.workload == ULYSSES_ATTN:
        return {"q_ptr": i["q_heads"], "k_ptr": i["k_heads"], "v_ptr": i["v_heads"], "a_ptr": i["o_rows"]}
    return {"k_ptr": i["k_full"], "v_ptr": i["v_full"]}


@pytest.mark.parametrize("rank", [0, 1])
@pytest.mark.parametrize("workload", paper_layers.WORKLOADS)
def test_fused_rows_compute_the_layer_on_simulated_ranks(workload: str, rank: int):
    spec = _spec(workload, 2, rank)
    ctx = BenchWorld(rank, 2, CPU, None, torch.float32, SimulatedGpu(2, rank, _sources(spec)))
    rows = fused_variants(spec, ctx, ["ce", "nccl"], ["arrival"], chunks=[1, 2])
    assert [v.name for v in rows] == ["syncopate ce/arrival", "syncopate nccl/arrival", "syncopate ce/arrival/c2",
                                      "syncopate nccl/arrival/c2"]
    assert all(v.na for v in rows[1:]) and "starve NCCL" in rows[1].na
    v = rows[0]
    v.setup()
    v.poison()
    v.run()
    result = check_result(v.result(), spec.problem.references[OUT])
    assert result.ok, result.reason
    v.teardown()


@pytest.mark.parametrize("workload", paper_layers.WORKLOADS)
def test_no_comm_rows_run_the_fused_kernels_with_every_chunk_in_place(workload: str):
    spec = _spec(workload, 2, 1)
    ctx = BenchWorld(1, 2, CPU, None, torch.float32, None)
    v = no_comm_variant(spec, ctx)
    assert v.na is None
    v.setup()
    v.poison()
    v.run()
    result = check_result(v.result(), spec.problem.references[OUT])
    assert result.ok, result.reason


def test_an_alone_row_is_wrong_when_its_first_stage_is():
    spec = _spec(MOE_LAYER, 2, 0)
    i = spec.problem.inputs
    st = {"out": spec.problem.references[OUT].clone(), "y": i["y"].clone()}
    result = paper_layers._checked_first(spec, st, "out", "y")
    assert check_result(result(), spec.problem.references[OUT]).ok
    st["y"][:3] += 1.0  # a first stage that got some rows wrong
    assert torch.isnan(result()).all()


def test_typed_plans_match_their_spec_text():
    q, k, v = paper_layers.ulysses_plans(64, 2)
    assert same_plan(k, "all-to-all{tensor=k_ptr dim=0 world=2 size=SEQ splits=32,32,32,32 name=a2ak}")
    assert same_plan(paper_layers.out_proj_plan(256, 2),
                     "all-to-all{tensor=a_ptr dim=1 world=2 size=K splits=256,256,256,256}")
    assert same_plan(paper_layers.ring_plans(2)[1], "ring-exchange{tensor=v_ptr dim=0 world=2 size=N_KV name=rxv}")
    d = paper_layers._moe_dims(TINY[MOE_LAYER], 2)
    assert same_plan(paper_layers.combine_plan(d),
                     f"all-to-all{{tensor=y_ptr dim=0 world=2 splits={','.join(map(str, d.splits()))}}}")


def test_the_rows_compile_for_each_gpu_pipeline():
    """The fused programs of the GPU rows (ce and sm, every tile order) compile."""
    for order in ("arrival", "rotate", "none"):
        for backend in ("ce", "sm"):
            paper_layers._compiled(paper_layers.source_path("mha_fwd.py"), "mha_kernel",
                                   paper_layers.ulysses_plans(64, 4), backend, order, hoist=True)
            paper_layers._compiled(paper_layers.source_path("ring_attn.py"), "ring_attn_kernel",
                                   paper_layers.ring_plans(4), backend, order)
            paper_layers._compiled(paper_layers.source_path("gemm_bf16.py"), "gemm_kernel",
                                   [paper_layers.out_proj_plan(256, 4)], backend, order)


@pytest.mark.skipif(os.environ.get("SYNCOPATE_FULL_MATRIX") != "1", reason="about 2 minutes: SYNCOPATE_FULL_MATRIX=1")
def test_cpu_run_at_w2_checks_every_row_on_both_ranks(tmp_path):
    """``overlap-bench --cpu --world 2`` over the three workloads: two gloo
    ranks, every row that runs on the CPU checked ok on both."""
    proc = subprocess.run([sys.executable, "-m", "syncopate.tools.overlap_bench", "--cpu", "--world", "2",
                           "--workload", ",".join(paper_layers.WORKLOADS), "--iters", "1", "--warmup", "0",
                           "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = list(csv.DictReader(open(tmp_path / "results.csv")))
    ran = [r for r in rows if not r["status"].startswith("n/a")]
    assert {r["workload"] for r in ran} == set(paper_layers.WORKLOADS)
    assert all(r["status"] == "ok" for r in ran), [(r["workload"], r["variant"], r["status"]) for r in ran]
    assert {r["variant"] for r in ran} >= {"cuBLAS+NCCL", "Triton+NCCL", "NCCL alone", "syncopate no-comm"}
