"""overlap-bench's ag-attn workload (context-parallel attention with K/V
all-gathered along the sequence): the shapes, the fp32 reference, the
Triton kernel against it, and the fused rows on simulated ranks in the
Triton interpreter (the GPU World cannot run here)."""

import pytest
import torch
from sim_gpu import SimulatedGpu
from spec_text import same_pipeline, same_plan

from syncopate.bench.attention import (
    CPU_ATTN,
    AttnDims,
    attn_kernel,
    launch_attention,
    make_attn_problem,
    pipeline,
    plans,
    program_for,
    reference_attention,
    sdpa,
)
from syncopate.bench.check import check_result
from syncopate.bench.context import BenchWorld
from syncopate.bench.fused import fused_variants
from syncopate.bench.problem import GATHERED, OUT, BenchSpec, reference_key
from syncopate.bench.shapes import AG_ATTN, SHAPES, ShapeError, select_shapes

TINY = next(s for s in SHAPES if s.workload == AG_ATTN and s.name == "cpu-tiny")


def test_llama_shapes_and_their_split():
    names = [s.name for s in select_shapes([AG_ATTN], "anchor", 2)]
    assert names == ["llama70b-cp-8k", "llama70b-cp-16k"]
    d = AttnDims.of(select_shapes([AG_ATTN], "llama70b-cp-16k", 4)[0], 4)
    assert (d.local, d.group, d.head_dim) == (4096, 8, 128)
    with pytest.raises(ShapeError, match="seq=64 is not divisible by W=3"):
        TINY.check_world(3)


def test_reference_is_softmax_attention_with_grouped_heads():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(shape, generator=g) for shape in ((5, 4, 8), (7, 2, 8), (7, 2, 8)))
    ref = reference_attention(q, k, v)
    head3 = torch.softmax(q[:, 3] @ k[:, 1].T / 8 ** 0.5, dim=-1) @ v[:, 1]  # heads 2, 3 read K/V head 1
    assert torch.allclose(ref[:, 3], head3, atol=1e-5)
    assert torch.allclose(sdpa(q, k, v), ref, atol=1e-5)


def test_triton_kernel_matches_the_reference_in_the_interpreter():
    p = make_attn_problem(TINY, 2, 1, torch.device("cpu"), torch.float32, seed=3)
    out = torch.full(p.q.shape, float("nan"))
    launch_attention(attn_kernel(), p.q, p.k_full, p.v_full, out, CPU_ATTN)
    assert check_result(out, p.references[OUT]).ok
    assert torch.equal(p.references[GATHERED][1][32:], p.v)  # rank 1's rows of V in the gathered pair


def test_plans_gather_k_and_v_along_the_sequence():
    k, v = plans(2, 2)
    assert same_plan(k, "all-gather{tensor=k_ptr dim=0 world=2 name=agk size=N_KV chunks_per_rank=2}")
    assert same_plan(v, "all-gather{tensor=v_ptr dim=0 world=2 name=agv size=N_KV chunks_per_rank=2}")
    assert same_pipeline(pipeline("ce", "arrival"), "overlap{order=arrival backend=ce hoist_loops=true}")
    assert same_pipeline(pipeline("sm", "none", "walk"), "overlap{order=none backend=sm}")
    program = program_for(2, "ce", "arrival")
    assert [p.sym_name.data for p in program.plans] == ["agk", "agv"]
    # the K/V waits are hoisted above the loop over the sequence (one per tile, not one per block)
    kernel = program.source[:program.source.index("def syn_")]
    before, loop = kernel.split("for start_n", 1)
    assert before.count("syn_wait_span(") == 2 and "syn_wait_span(" not in loop


def test_nccl_rows_are_refused_for_attention():
    p = make_attn_problem(TINY, 2, 0, torch.device("cpu"), torch.float32)
    ctx = BenchWorld(0, 2, torch.device("cpu"), None, torch.float32, SimulatedGpu(2, 0, {}))
    rows = fused_variants(BenchSpec(TINY, 2, 0, torch.float32, CPU_ATTN, p), ctx, ["nccl"], ["arrival", "none"])
    assert len(rows) == 2 and all("every attention tile waits for every K/V chunk" in v.na for v in rows)


@pytest.mark.parametrize("rank", [0, 1])
def test_fused_rows_compute_attention_over_the_gathered_sequence(rank: int):
    p = make_attn_problem(TINY, 2, rank, torch.device("cpu"), torch.float32, seed=5)
    peers_k, peers_v = p.k_full.clone(), p.v_full.clone()  # what the simulated peers deliver: the checked version
    gpu = SimulatedGpu(2, rank, {"k_ptr": peers_k, "v_ptr": peers_v})
    ctx = BenchWorld(rank, 2, torch.device("cpu"), None, torch.float32, gpu)
    spec = BenchSpec(TINY, 2, rank, torch.float32, CPU_ATTN, p)
    rows = fused_variants(spec, ctx, ["ce"], ["arrival", "none"], chunks=[1, 2], attn_waits=["hoist", "walk"])
    assert [v.name for v in rows] == [
        "syncopate ce/arrival", "syncopate ce/arrival/walk", "syncopate ce/none", "syncopate ce/none/walk",
        "syncopate ce/arrival/c2", "syncopate ce/arrival/c2/walk", "syncopate ce/none/c2", "syncopate ce/none/c2/walk"]
    assert [v.meta["waits"] for v in rows[:2]] == ["hoist", "walk"]
    assert p.versions == 2
    for v in rows:
        v.setup()
        for version in (1, 0):  # each checked launch reads other K/V than the one before
            for peers, full in zip((peers_k, peers_v), (torch.cat([x[0] for x in _all_versions(rank, version)]),
                                                        torch.cat([x[1] for x in _all_versions(rank, version)]))):
                peers.copy_(full)
            v.poison()
            v.produce(version)
            k = ctx.cache[("attn-symmetric", "k", (64, 2, 16), torch.float32)]
            lo, hi = spec.own_rows
            assert torch.isnan(k).all()  # the launch stages this rank's rows itself (a call pays that copy)
            v.run()
            assert torch.equal(k[lo:hi], p.kv_versions[version][0])
            result = check_result(v.result(), p.references[reference_key(OUT, version)])
            assert result.ok, f"rank {rank} {v.name} version {version}: {result.reason}"
        v.teardown()


def _all_versions(rank, version):
    """Every rank's (K, V) shards of input ``version`` (each rank draws every rank's)."""
    return [make_attn_problem(TINY, 2, r, torch.device("cpu"), torch.float32, seed=5).kv_versions[version]
            for r in range(2)]


def test_attention_config_rejects_non_positive_sizes():
    from syncopate.bench.attention import AttnConfig

    with pytest.raises(ValueError, match="AttnConfig.block_n must be a positive int, got 0"):
        AttnConfig(block_n=0)
    assert CPU_ATTN.text() == "attn 16x16 warps=1 stages=1"


def test_walk_rows_wait_per_iteration_for_new_chunks_only():
    program = program_for(2, "ce", "arrival", waits="walk")
    kernel = program.source[:program.source.index("def syn_")]
    before, loop = kernel.split("for start_n", 1)
    assert "syn_wait_span" not in before and loop.count("syn_wait_span_loop(") == 2
    with pytest.raises(ValueError, match="attention waits must be one of hoist, walk"):
        program_for(2, "ce", "arrival", waits="late")
