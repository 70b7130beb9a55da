"""overlap-bench's a2a-gemm workload (MoE dispatch all-to-all + grouped
GEMM): sizes, the receive layout, the Triton kernel against the reference,
and the fused rows on simulated ranks in the Triton interpreter."""

import dataclasses

import pytest
import torch
from sim_gpu import SimulatedGpu
from spec_text import same_plan

from syncopate.bench.check import check_result
from syncopate.bench.configs import CPU_DEFAULT
from syncopate.bench.context import BenchWorld
from syncopate.bench.fused import fused_variants
from syncopate.bench.moe import (
    MoeDims,
    grouped_kernel,
    launch_grouped_gemm,
    make_moe_problem,
    plan,
    segments,
    tile_tables,
)
from syncopate.bench.problem import OUT, BenchSpec
from syncopate.bench.shapes import A2A_GEMM, SHAPES, ShapeError, select_shapes

TINY = next(s for s in SHAPES if s.workload == A2A_GEMM and s.name == "cpu-tiny")


def test_mixtral_sizes_and_split():
    shape = select_shapes([A2A_GEMM], "mixtral-8x7b-4k", 4)[0]
    d = MoeDims.of(shape, 4)
    assert (d.local_experts, d.per_expert, d.rows, d.block) == (2, 1024, 8192, 2048)
    assert same_plan(plan(MoeDims.of(TINY, 2)), "all-to-all{tensor=x_ptr dim=0 world=2 splits=16,16,16,16}")
    with pytest.raises(ShapeError, match="experts=2 is not divisible by W=3"):
        TINY.check_world(3)


def test_received_rows_come_by_source_then_expert():
    d = MoeDims.of(TINY, 2)
    assert segments(d) == [(0, 16, 0), (16, 32, 0)]  # one local expert per rank at W = 2: 16 rows from each source
    p0, p1 = (make_moe_problem(TINY, 2, r, torch.device("cpu"), torch.float32, seed=2) for r in (0, 1))
    assert torch.equal(p1.recv[:16], p0.send[16:]) and torch.equal(p1.recv[16:], p1.send[16:])
    starts, sizes, experts = tile_tables(d, 16, torch.device("cpu"))
    assert starts.tolist() == [0, 16] and sizes.tolist() == [16, 16] and experts.tolist() == [0, 0]


@pytest.mark.parametrize("kernel", ["ptr", "tma", "persistent"])
@pytest.mark.parametrize("block_m", [16, 32])
def test_triton_grouped_gemm_matches_the_reference(kernel: str, block_m: int):
    """block_m 32 over 16-row segments: every tile is short, so the TMA kernel
    loads the next segment's rows and its masked store must drop them."""
    p = make_moe_problem(TINY, 1, 0, torch.device("cpu"), torch.float32, seed=4)
    config = dataclasses.replace(CPU_DEFAULT, kernel=kernel, block_m=block_m)
    out = torch.full((p.dims.rows, p.dims.ffn), float("nan"))
    launch_grouped_gemm(grouped_kernel(config), p.recv, p.w, out, tile_tables(p.dims, block_m, torch.device("cpu")),
                        config)
    assert check_result(out, p.references[OUT]).ok


def test_grouped_kernels_by_config():
    with pytest.raises(ValueError, match="a2a-gemm has no 'persistent-flat' grouped GEMM kernel"):
        grouped_kernel(dataclasses.replace(CPU_DEFAULT, kernel="persistent-flat"))


@pytest.mark.parametrize("kernel", ["ptr", "tma", "persistent"])
@pytest.mark.parametrize("rank", [0, 1])
def test_fused_rows_multiply_the_delivered_rows(rank: int, kernel: str):
    p = make_moe_problem(TINY, 2, rank, torch.device("cpu"), torch.float32, seed=6)
    gpu = SimulatedGpu(2, rank, {"x_ptr": p.recv})
    ctx = BenchWorld(rank, 2, torch.device("cpu"), None, torch.float32, gpu)
    spec = BenchSpec(TINY, 2, rank, torch.float32, dataclasses.replace(CPU_DEFAULT, kernel=kernel), p)
    rows = fused_variants(spec, ctx, ["ce", "nccl"], ["arrival"], chunks=[1, 2])
    assert [v.name for v in rows] == ["syncopate ce/arrival", "syncopate nccl/arrival", "syncopate ce/arrival/c2",
                                      "syncopate nccl/arrival/c2"]
    assert "loaded table" in rows[1].na and "one chunk per (source, destination)" in rows[2].na
    v = rows[0]
    v.setup()
    send = gpu.send_buffers["x_ptr"]  # the symmetric send buffer the peers read
    v.poison()
    assert torch.isnan(send).all()
    v.run()  # stages the tokens in it (a call pays that copy), then launches
    assert torch.equal(send, p.send)
    result = check_result(v.result(), p.references[OUT])
    assert result.ok, result.reason


@pytest.mark.parametrize("kernel", ["ptr", "tma", "persistent"])
def test_a_tile_row_runs_the_grouped_gemm_with_its_own_tile(kernel: str):
    """32-row tiles over 16-row segments: each tile's rows reach into the
    next segment (another source's chunk for the TMA kernel's loads)."""
    p = make_moe_problem(TINY, 2, 1, torch.device("cpu"), torch.float32, seed=7)
    ctx = BenchWorld(1, 2, torch.device("cpu"), None, torch.float32, SimulatedGpu(2, 1, {"x_ptr": p.recv}))
    spec = BenchSpec(TINY, 2, 1, torch.float32, dataclasses.replace(CPU_DEFAULT, kernel=kernel), p)
    v = fused_variants(spec, ctx, ["ce"], ["arrival"], tiles=["32x32"])[0]
    assert v.name == "syncopate ce/arrival/t32x32" and v.na is None
    v.setup()
    v.poison()
    v.run()
    result = check_result(v.result(), p.references[OUT])
    assert result.ok, result.reason
