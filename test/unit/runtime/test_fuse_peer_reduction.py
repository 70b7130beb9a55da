"""The epilogue reduction (fuse-peer-reduction) on simulated ranks and the checks that keep it from hanging."""

import dataclasses
import os
import re

import pytest
import torch

from syncopate.runtime.abi import AbiError, LaunchPlan, epilogue_order_error, fused_reductions
from syncopate.runtime.harness.check import run_simulated
from syncopate.runtime.fused import FusedKernel, FusedProgram, compile_fused
from syncopate.runtime.local import LocalRank
from syncopate.runtime.sim.delivery import SimulationError
from syncopate.runtime.sim.world import SimWorld
from syncopate.runtime.staging import StagingError, StagingLayout, owner_regions, reduce_table
from syncopate.runtime.harness.workload import load_workload

EXAMPLE = "examples/gemm_rs_tma.py"
EPILOGUE = "overlap{backend=ce reduce=epilogue}"
PLAN = "reduce-scatter{{tensor=c_ptr dim=0 world={world}{extra}}}"


def program(world, pipeline=EPILOGUE, extra=""):
    return compile_fused(EXAMPLE, "gemm_rs_tma_kernel", [PLAN.format(world=world, extra=extra)], pipeline)


@pytest.mark.parametrize("world,extra", [(2, ""), (3, ""), (2, " chunks_per_rank=3"), (3, " order=ring"),
                                         (2, " blocks=3"), (3, " blocks=2 order=ring")])  # packed staging slots
@pytest.mark.parametrize("order", ["plan", "reversed", "random", "late"])
def test_owners_sum_the_peers_partials_in_their_tiles(world, extra, order):
    workload = load_workload(EXAMPLE)
    results = run_simulated(workload, world, order, program=program(world, extra=extra))
    assert all(r.ok for r in results), [(r.rank, r.error) for r in results]
    assert all(r.polls > 0 for r in results)  # the own tiles polled their arrival flags


def _without_waits(prog: FusedProgram, tmp_path) -> FusedProgram:
    """The same kernel with syn_reduce_span's spin removed: it reads the staging slots without waiting."""
    source = re.sub(r"\n +syn_spin\(flags, tmp\.to\(tl\.int32\), epoch[^\n]*\n", "\n", prog.source)
    assert source != prog.source
    path = os.path.join(tmp_path, "no_wait.py")
    with open(path, "w") as f:
        f.write(source)
    import importlib.util

    spec = importlib.util.spec_from_file_location("syncopate_no_wait", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dataclasses.replace(prog, source=source, path=path, jit=getattr(module, prog.kernel_name))


def test_a_tile_that_adds_without_waiting_reads_nan(tmp_path):
    workload = load_workload(EXAMPLE)
    results = run_simulated(workload, 2, "late", program=_without_waits(program(2), tmp_path))
    assert not any(r.ok for r in results)


def test_a_table_missing_a_peer_leaves_its_partial_out(monkeypatch):
    import syncopate.runtime.sim.epilogue as sim_epilogue

    original = sim_epilogue.reduce_table
    monkeypatch.setattr(sim_epilogue, "reduce_table", lambda *a: [r for r in original(*a) if r[0] != 0] or original(*a)[:0])
    results = run_simulated(load_workload(EXAMPLE), 3, "plan", program=program(3))
    assert not results[0].ok  # rank 0's rows start at 0: its table lost every peer


def test_tiles_holding_rows_of_two_owners_are_refused():
    # 96 rows at W = 4: 24 per rank, so the 16-row tile [16, 32) holds rows of ranks 0 and 1
    with pytest.raises(AbiError, match=r"writes rows of rank 0 and of rank\(s\) \[1\].*deadlock"):
        run_simulated(load_workload(EXAMPLE), 4, "plan", program=program(4))


def test_own_tiles_before_peer_tiles_are_refused():
    prog = program(2, "overlap{backend=ce reduce=epilogue order=rotate}")
    with pytest.raises(AbiError, match=r"runs a tile of rank 0's own rows before tiles of other ranks' rows"):
        run_simulated(load_workload(EXAMPLE), 2, "plan", program=prog)


def _launch_plan(prog: FusedProgram, world: int) -> LaunchPlan:
    """Rank 0's launch of the example's kernel (5 programs) at world size ``world``."""
    inputs = load_workload(EXAMPLE).module.make_inputs(0, world, 0)
    a, b = inputs["a"], inputs["b"]
    c = torch.empty(a.shape[0], b.shape[1])
    params = dict(a_ptr=a, b_ptr=b, c_ptr=c, M=a.shape[0], N=b.shape[1], K=a.shape[1], stride_am=a.stride(0),
                  stride_ak=1, stride_bk=b.stride(0), stride_bn=1, stride_cm=c.stride(0), stride_cn=1,
                  BLOCK_M=16, BLOCK_N=16, BLOCK_K=16, PROGRAMS=5)
    return LaunchPlan.build(prog, params, (5,), 0)


def test_the_stream_reduction_is_not_refused():
    prog = program(4, "overlap{backend=ce}")
    assert fused_reductions(prog) == set()
    assert epilogue_order_error(prog, _launch_plan(prog, 4)) is None


def test_local_rank_adds_zeros_and_gives_the_local_gemm():
    workload = load_workload(EXAMPLE)
    inputs = workload.module.make_inputs(1, 2, 0)
    reference = workload.module.launch(workload.module.KERNEL, **inputs)
    fused = workload.module.launch(FusedKernel(program(2), workload.module.KERNEL, LocalRank(None, 1)), **inputs)
    assert torch.equal(fused, reference)


def test_a_second_launch_before_every_rank_launched_is_refused():
    workload = load_workload(EXAMPLE)
    sim = SimWorld(2)
    kernel = FusedKernel(program(2), workload.module.KERNEL, sim.rank(0))
    inputs = workload.module.make_inputs(0, 2, 0)
    workload.module.launch(kernel, **inputs)  # deferred until rank 1 launches
    assert sim.deferred and not sim.launches
    with pytest.raises(SimulationError, match="launched a kernel that reduces in its epilogue again"):
        workload.module.launch(kernel, **inputs)


def _chunks(world, per_rank=1):
    from syncopate.ir.analysis.deps import concrete_chunks
    from syncopate.ir.context import make_context
    from syncopate.ir.plans.cli import load_plans

    extra = f" chunks_per_rank={per_rank}" if per_rank > 1 else ""
    plan = load_plans([f"reduce-scatter{{tensor=c_ptr dim=0 world={world} size=M{extra}}}"], make_context())[0]
    return concrete_chunks(plan, {"M": 64}, 0)


def test_reduce_table_rows_point_into_each_peers_slot():
    chunks = _chunks(4, per_rank=2)
    regions = owner_regions(chunks)
    layout = StagingLayout(regions, 4, flag_base=100)
    out = torch.empty(64, 8)
    staging = torch.empty(layout.shape(out))
    assert layout.shape(out) == (4, 16, 8)
    rows = reduce_table(layout, regions, 1, out, staging)
    # rank 1 owns rows [16, 32) in two pieces of 8; one row per piece and peer
    assert [(r[0], r[1]) for r in rows] == [(16, 24)] * 3 + [(24, 32)] * 3
    assert [r[3] for r in rows] == [src * 16 * 8 + slot * 8 for slot in (0, 8) for src in (0, 2, 3)]
    assert all(r[4] == 8 and r[5] == 8 for r in rows)
    assert len({r[2] for r in rows}) == 6 and min(r[2] for r in rows) >= 100


def test_reduce_table_refuses_a_staging_buffer_of_another_shape():
    chunks = _chunks(2)
    regions = owner_regions(chunks)
    layout = StagingLayout(regions, 2, flag_base=0)
    with pytest.raises(StagingError, match="does not fit layout"):
        reduce_table(layout, regions, 0, torch.empty(64, 8), torch.empty(2, 32, 4))
    with pytest.raises(StagingError, match="sums 2-D tiles"):
        reduce_table(layout, regions, 0, torch.empty(64), torch.empty(2, 32))


def test_a_persistent_grid_must_leave_an_sm_per_spinning_stream_on_gpus():
    """The communication stream and each ce lane may each hold an SM while
    they spin (a launch with one SM free hung on nvidia-h200-x2)."""
    from syncopate.runtime.gpu import epilogue_comm_sms, epilogue_reduction_refusal

    prog = program(2)
    launch = _launch_plan(prog, 2)
    assert epilogue_comm_sms(1) == 2 and epilogue_comm_sms(3) == 4
    refused = epilogue_reduction_refusal(prog, launch, 5, 6)
    assert "leave 1 of 6 SMs free" in refused and "its 1 ce lane(s)" in refused and "at most 4 programs" in refused
    assert epilogue_reduction_refusal(prog, launch, 5, 7) is None
    assert "at most 4 programs" in epilogue_reduction_refusal(prog, launch, 5, 7, lanes=2)
    assert epilogue_reduction_refusal(prog, launch, 5, 8, lanes=2) is None
    assert epilogue_reduction_refusal(program(2, "overlap{backend=ce}"), launch, 5, 5) is None
