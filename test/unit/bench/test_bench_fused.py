"""overlap-bench's syncopate rows, run on simulated ranks in the Triton interpreter.

The GPU world cannot run here; a stand-in with the same two calls
(``symmetric``, ``context``) backed by syncopate's simulated world runs the
very Variants ``fused_variants`` builds, with a real 2-rank all-gather plan,
so their buffers, arguments and result views are checked end to end.
"""

import dataclasses

import pytest
import torch
from sim_gpu import SimulatedGpu
from spec_text import same_pipeline, same_plan

from syncopate.bench import fused, gemm
from syncopate.bench.check import check_result
from syncopate.bench.configs import CPU_DEFAULT, KERNELS, parse_tile, with_tile
from syncopate.bench.context import BenchWorld
from syncopate.bench.fused import fused_variants, overlap_pass, plan, plan_dim, program_for, row_options
from syncopate.bench.problem import BenchSpec, make_problem, reference_key
from syncopate.bench.shapes import A2A_GEMM, AG_GEMM, GEMM_AR, GEMM_RS, SHAPES, Shape


def shape(workload):
    return next(s for s in SHAPES if s.workload == workload and s.name == "cpu-tiny")


def test_typed_plans_and_pipelines_match_their_spec_text():
    assert same_plan(plan(AG_GEMM, 4), "all-gather{tensor=a_ptr dim=0 world=4}")
    assert same_plan(plan(GEMM_RS, 2), "reduce-scatter{tensor=c_ptr dim=0 world=2}")
    assert same_plan(plan(GEMM_AR, 2, 2), "all-reduce{tensor=c_ptr dim=0 world=2 chunks_per_rank=2}")
    assert plan(AG_GEMM, 4, 3).chunks_per_rank == 3  # a value, never written into a string
    assert same_pipeline(overlap_pass("ce", "rotate"), "overlap{order=rotate backend=ce}")
    assert same_pipeline(overlap_pass("ce", "arrival", "epilogue"), "overlap{order=arrival backend=ce reduce=epilogue}")


@pytest.mark.parametrize("kernel", KERNELS)
def test_fused_ag_rows_compute_the_gathered_gemm_on_every_rank(kernel: str):
    """Each checked launch reads a fresh input version: the staged rows copy
    the shard into the (wholly poisoned) symmetric buffer inside ``run``,
    the /direct rows have it written there by ``produce``."""
    world, s = 2, shape(AG_GEMM)
    config = dataclasses.replace(CPU_DEFAULT, kernel=kernel)
    for rank in range(world):
        problem = make_problem(s, world, rank, torch.device("cpu"), torch.float32, seed=5)
        peers = problem.a_full.clone()  # what the simulated peers deliver: the version being checked
        ctx = BenchWorld(rank, world, torch.device("cpu"), None, torch.float32,
                         SimulatedGpu(world, rank, {"a_ptr": peers}))
        spec = BenchSpec(s, world, rank, torch.float32, config, problem)
        variants = fused_variants(spec, ctx, ["ce", "auto"], ["arrival", "rotate", "none"], direct=True)
        assert [v.name for v in variants][:3] == ["syncopate ce/arrival", "syncopate ce/arrival/direct",
                                                  "syncopate ce/rotate"]
        lo, hi = spec.own_rows
        for v in variants:
            direct = v.name.endswith("/direct")
            v.setup()
            for version in (1, 0):
                peers.copy_(problem.a_full_versions[version])
                v.poison()
                key = ("ag-symmetric", (64, 48), torch.float32) + ((v.name,) if direct else ())
                buf = ctx.cache[key]
                assert torch.isnan(v.result()).all()
                v.produce(version)
                assert torch.isnan(buf[:lo]).all() and torch.isnan(buf[hi:]).all()  # peers' rows must be delivered
                if direct:  # the producer wrote straight into the symmetric buffer
                    assert torch.equal(buf[lo:hi], problem.a_versions[version])
                else:  # the launch stages the shard itself
                    assert torch.isnan(buf[lo:hi]).all()
                v.run()
                assert torch.equal(buf[lo:hi], problem.a_versions[version])
                result = check_result(v.result(), problem.references[reference_key(v.expect, version)])
                assert result.ok, f"rank {rank} {v.name} version {version}: {result.reason}"
            v.teardown()


def test_direct_rows_are_ag_gemm_only():
    s = shape(GEMM_RS)
    problem = make_problem(s, 2, 0, torch.device("cpu"), torch.float32)
    ctx = BenchWorld(0, 2, torch.device("cpu"), None, torch.float32, SimulatedGpu(2, 0, {"a_ptr": problem.a}))
    rows = fused_variants(BenchSpec(s, 2, 0, torch.float32, CPU_DEFAULT, problem), ctx, ["ce"], ["arrival"],
                          direct=True)
    assert [v.name for v in rows] == ["syncopate ce/arrival", "syncopate ce/arrival/direct"]
    assert rows[0].na is None and "ag-gemm only" in rows[1].na


def test_persistent_rows_with_a_short_last_l2_group(monkeypatch):
    """4 tile rows in groups of 3: the persistent kernel's last group has one
    row (its ``min``), and the fused rows' waits follow the swizzled tiles."""
    monkeypatch.setattr(gemm, "PERSISTENT_GROUP_M", 3)
    assert gemm.kernel_constexprs(dataclasses.replace(CPU_DEFAULT, kernel="persistent"), 4)["GROUP_M"] == 3
    test_fused_ag_rows_compute_the_gathered_gemm_on_every_rank("persistent")


def test_rs_rows_compile_and_view_the_rank_rows():
    program = program_for(GEMM_RS, 2, "ce", "arrival", CPU_DEFAULT)
    assert "reduce-scatter" in [p.collective for p in program.plans]
    s = shape(GEMM_RS)
    problem = make_problem(s, 2, 1, torch.device("cpu"), torch.float32, seed=0)
    ctx = BenchWorld(1, 2, torch.device("cpu"), None, torch.float32, SimulatedGpu(2, 1, {"a_ptr": problem.a}))
    v = fused_variants(BenchSpec(s, 2, 1, torch.float32, CPU_DEFAULT, problem), ctx, ["ce"], ["arrival"])[0]
    v.setup()
    v.poison()
    assert v.result().shape == problem.references["out"].shape == (32, 40)
    assert torch.isnan(v.result()).all()


def test_rs_rows_poison_every_staging_buffer_before_each_checked_launch(monkeypatch):
    """A reduction that summed a peer's partial before it arrived would sum
    NaN, not the identical partial of the launch before."""
    s = shape(GEMM_RS)
    problem = make_problem(s, 2, 0, torch.device("cpu"), torch.float32, seed=0)
    gpu = SimulatedGpu(2, 0, {"a_ptr": problem.a})
    ctx = BenchWorld(0, 2, torch.device("cpu"), None, torch.float32, gpu)
    v = fused_variants(BenchSpec(s, 2, 0, torch.float32, CPU_DEFAULT, problem), ctx, ["ce"], ["arrival"])[0]
    v.setup()
    launches = []
    launch = fused.launch_gemm
    monkeypatch.setattr(fused, "launch_gemm", lambda *args: (launches.append(1), launch(*args)))
    gpu.staging[("pad", (2, 32, 40), torch.float32)] = torch.zeros(2, 32, 40)
    for check in range(3):
        for buf in gpu.staging.values():
            buf.zero_()  # what the previous launch left
        v.poison()
        assert all(torch.isnan(buf).all() for buf in gpu.staging.values()), check
        assert torch.isnan(v.result()).all()
    assert len(launches) == 1  # the first poisoning launched once: the runtime allocates the staging buffers then


def test_cpu_and_unsupported_workloads_are_na_rows():
    s = shape(AG_GEMM)
    problem = make_problem(s, 1, 0, torch.device("cpu"), torch.float32)
    cpu = BenchWorld(0, 1, torch.device("cpu"), None, torch.float32, None)
    rows = fused_variants(BenchSpec(s, 1, 0, torch.float32, CPU_DEFAULT, problem), cpu)
    assert len(rows) == 12 and {v.na for v in rows} == {"needs CUDA"}
    assert {(v.meta["backend"], v.meta["order"]) for v in rows} == {
        (b, o) for b in ("ce", "sm", "nccl", "auto") for o in ("arrival", "rotate", "none")}
    moe = next(x for x in SHAPES if x.workload == A2A_GEMM)
    rows = fused_variants(BenchSpec(moe, 2, 0, torch.float32, CPU_DEFAULT, None), cpu)
    assert len(rows) == 12 and {v.na for v in rows} == {"needs CUDA"}  # every workload has a fused kernel now
    unknown = dataclasses.replace(moe, workload="moe-v2")
    rows = fused_variants(BenchSpec(unknown, 2, 0, torch.float32, CPU_DEFAULT, None), cpu)
    assert len(rows) == 1 and "no fused benchmark kernel for moe-v2" in rows[0].na


def test_ag_nccl_rows_run_only_local_first_on_gpus():
    """On a full grid, tiles spinning on nccl chunks would starve NCCL of SMs
    unless local tiles come first; those rows say so instead of hanging."""
    s = shape(AG_GEMM)
    problem = make_problem(s, 2, 0, torch.device("cpu"), torch.float32)
    gpu = BenchWorld(0, 2, torch.device("cpu"), None, torch.float32, SimulatedGpu(2, 0, {"a_ptr": problem.a_full}))
    rows = fused_variants(BenchSpec(s, 2, 0, torch.float32, CPU_DEFAULT, problem), gpu, ["nccl"],
                          ["arrival", "rotate", "none"])
    assert [v.na is None for v in rows] == [True, False, False]
    assert all("order=arrival" in v.na for v in rows[1:])


def test_ag_nccl_rows_of_a_persistent_kernel_are_not_run():
    """Its programs never hand an SM back, so no order is safe: tiles spinning on nccl chunks would hang."""
    s = shape(AG_GEMM)
    problem = make_problem(s, 2, 0, torch.device("cpu"), torch.float32)
    gpu = BenchWorld(0, 2, torch.device("cpu"), None, torch.float32, SimulatedGpu(2, 0, {"a_ptr": problem.a_full}))
    for kernel in ("persistent", "persistent-flat"):
        config = dataclasses.replace(CPU_DEFAULT, kernel=kernel)
        rows = fused_variants(BenchSpec(s, 2, 0, torch.float32, config, problem), gpu, ["nccl", "ce"], ["arrival"])
        assert rows[0].na is not None and "persistent kernel's programs hold every SM" in rows[0].na
        assert rows[1].na is None


def test_lanes_multiply_only_the_ce_rows():
    rows = row_options(["ce", "sm", "auto"], ["arrival"], [1, 2], [1, 3, 3])
    assert [r.name for r in rows] == [
        "syncopate ce/arrival", "syncopate ce/arrival/l3", "syncopate sm/arrival", "syncopate auto/arrival",
        "syncopate auto/arrival/l3", "syncopate ce/arrival/c2", "syncopate ce/arrival/c2/l3", "syncopate sm/arrival/c2",
        "syncopate auto/arrival/c2", "syncopate auto/arrival/c2/l3"]
    assert rows[1].meta == {"backend": "ce", "order": "arrival", "chunks": 1, "lanes": 3, "tile": "", "reduce": "stream"}


def test_a_lane_row_launches_through_a_context_with_its_lanes():
    s = shape(GEMM_RS)
    problem = make_problem(s, 2, 0, torch.device("cpu"), torch.float32, seed=0)
    gpu = SimulatedGpu(2, 0, {"a_ptr": problem.a})
    ctx = BenchWorld(0, 2, torch.device("cpu"), None, torch.float32, gpu)
    v = fused_variants(BenchSpec(s, 2, 0, torch.float32, CPU_DEFAULT, problem), ctx, ["ce"], ["arrival"], lanes=[2])[0]
    assert v.name == "syncopate ce/arrival/l2" and v.meta["lanes"] == 2
    v.setup()
    assert gpu.lanes == 2


def test_tiles_parse_and_replace_only_the_block_sizes():
    assert parse_tile("128x128") == (128, 128) and parse_tile("64x256x32") == (64, 256, 32)
    for bad in ("128", "128x96", "8x16", "axb", "16x16x16x16", ""):
        with pytest.raises(ValueError, match=f"tile '{bad}' is not BMxBN"):
            parse_tile(bad)
    tuned = dataclasses.replace(CPU_DEFAULT, kernel="tma", num_stages=2)
    assert with_tile(tuned, "") is tuned
    got = with_tile(tuned, "32x16")
    assert (got.block_m, got.block_n, got.block_k, got.kernel, got.num_stages) == (32, 16, 16, "tma", 2)
    assert with_tile(tuned, "32x16x32").block_k == 32


def test_tile_rows_multiply_the_rows_and_run_their_own_block_sizes(monkeypatch):
    import syncopate.bench.fused as fused

    configs = []

    def recording_launch(kernel, a, b, c, config, reserved=0):
        configs.append(config)
        launch_gemm(kernel, a, b, c, config, reserved)

    launch_gemm = fused.launch_gemm
    monkeypatch.setattr(fused, "launch_gemm", recording_launch)
    rows = row_options(["ce"], ["arrival"], [1], [1], ["", "32x16"])
    assert [r.name for r in rows] == ["syncopate ce/arrival", "syncopate ce/arrival/t32x16"]
    assert rows[1].meta["tile"] == "32x16"
    world, s = 2, shape(AG_GEMM)
    for rank in range(world):
        problem = make_problem(s, world, rank, torch.device("cpu"), torch.float32, seed=3)
        ctx = BenchWorld(rank, world, torch.device("cpu"), None, torch.float32,
                         SimulatedGpu(world, rank, {"a_ptr": problem.a_full}))
        spec = BenchSpec(s, world, rank, torch.float32, CPU_DEFAULT, problem)
        v = fused_variants(spec, ctx, ["ce"], ["arrival"], tiles=["32x16"])[0]
        assert v.name == "syncopate ce/arrival/t32x16"
        v.setup()
        v.poison()
        v.run()
        result = check_result(v.result(), problem.references[v.expect])
        assert result.ok, f"rank {rank} {v.name}: {result.reason}"
        assert (configs[-1].block_m, configs[-1].block_n) == (32, 16)


def test_tile_rows_of_other_workloads_say_why_they_do_not_run():
    from syncopate.bench.attention import CPU_ATTN, make_attn_problem

    attn = next(x for x in SHAPES if x.workload == "ag-attn" and x.name == "cpu-tiny")
    p = make_attn_problem(attn, 2, 0, torch.device("cpu"), torch.float32)
    cpu = BenchWorld(0, 2, torch.device("cpu"), None, torch.float32, SimulatedGpu(2, 0, {}))
    rows = fused_variants(BenchSpec(attn, 2, 0, torch.float32, CPU_ATTN, p), cpu, ["ce"], ["arrival"], tiles=["32x16"])
    assert [r.name for r in rows] == ["syncopate ce/arrival/t32x16"]
    assert "own GEMM tile applies to ag-gemm, gemm-rs, gemm-ar, a2a-gemm only" in rows[0].na


def test_a_persistent_gemm_leaves_the_sm_backends_communication_programs_their_sms():
    sm = program_for(AG_GEMM, 2, "sm", "arrival", CPU_DEFAULT)
    ce = program_for(AG_GEMM, 2, "ce", "arrival", CPU_DEFAULT)
    gpu = dataclasses.make_dataclass("Gpu", [("comm_programs", int)])(16)
    assert gemm.comm_programs(sm, gpu) == 16 and gemm.comm_programs(ce, gpu) == 0
    persistent = dataclasses.replace(CPU_DEFAULT, kernel="persistent")
    assert gemm.grid(64, 48, persistent, None, reserved=1) == (gemm.INTERPRETER_PROGRAMS - 1,)
    assert gemm.grid(64, 48, CPU_DEFAULT, None, reserved=1) == (4, 3)  # one program per tile: nothing to leave


def test_epilogue_rows_exist_for_the_ce_backend_only():
    rows = row_options(["ce", "sm"], ["arrival"], [1], [1, 2], reductions=["stream", "epilogue"])
    assert [r.name for r in rows] == [
        "syncopate ce/arrival", "syncopate ce/arrival/epi", "syncopate ce/arrival/l2", "syncopate ce/arrival/l2/epi",
        "syncopate sm/arrival"]
    assert rows[1].meta["reduce"] == "epilogue" and rows[4].meta["reduce"] == "stream"


def test_epilogue_rows_of_other_workloads_and_kernels_say_why_they_do_not_run():
    for workload, kernel, why in ((AG_GEMM, "persistent", "gemm-rs only"), (GEMM_RS, "tma", "persistent TMA GEMM")):
        s = shape(workload)
        problem = make_problem(s, 2, 0, torch.device("cpu"), torch.float32)
        gpu = BenchWorld(0, 2, torch.device("cpu"), None, torch.float32, SimulatedGpu(2, 0, {"a_ptr": problem.a_full}))
        config = dataclasses.replace(CPU_DEFAULT, kernel=kernel)
        rows = fused_variants(BenchSpec(s, 2, 0, torch.float32, config, problem), gpu, ["ce"], ["arrival"],
                              reductions=["stream", "epilogue"])
        assert [r.name for r in rows] == ["syncopate ce/arrival", "syncopate ce/arrival/epi"]
        assert rows[0].na is None and why in rows[1].na


def test_epilogue_rs_rows_sum_the_partials_on_simulated_ranks(monkeypatch):
    """Both ranks' epilogue rows share one simulated world (it runs their
    kernels once every rank has launched); each owner's rows match the
    reference, and the persistent grid leaves an SM per spinning stream free."""
    from syncopate.runtime.abi import fused_reductions

    s, world = shape(GEMM_RS), 2
    config = dataclasses.replace(CPU_DEFAULT, kernel="persistent")
    assert fused_reductions(program_for(GEMM_RS, world, "ce", "arrival", config, 1, "epilogue"))
    grids = []
    launch = gemm.launch_gemm
    monkeypatch.setattr("syncopate.bench.fused.launch_gemm",
                        lambda *a: grids.append(a[-1] if len(a) > 5 else 0) or launch(*a))
    gpus = [SimulatedGpu(world, r, {}) for r in range(world)]
    gpus[1].sim = gpus[0].sim
    rows = []
    for rank in range(world):
        problem = make_problem(s, world, rank, torch.device("cpu"), torch.float32, seed=3)
        ctx = BenchWorld(rank, world, torch.device("cpu"), None, torch.float32, gpus[rank])
        [v] = fused_variants(BenchSpec(s, world, rank, torch.float32, config, problem), ctx, ["ce"], ["arrival"],
                             reductions=["epilogue"])
        assert v.name == "syncopate ce/arrival/epi" and v.na is None
        v.setup()
        v.poison()
        rows.append((v, problem))
    for v, _ in rows:
        v.run()
    for v, problem in rows:
        result = check_result(v.result(), problem.references["out"])
        assert result.ok, result.reason
    # the communication stream's and the one ce lane's waits; each rank launched
    # twice: in its first poisoning (the runtime allocates staging then) and in run()
    assert grids == [2, 2, 2, 2]


@pytest.mark.parametrize("backend", ["ce", "nccl"])
def test_ar_rows_sum_every_owners_rows_on_simulated_ranks(backend):
    """Both ranks' rows share one simulated world; each owner's rows of the
    sum are right (the simulator collects them where the owner sums them:
    the gather phase that copies them to every rank is the GPU runtime's),
    and each rank's row is checked on its whole output."""
    s, world = shape(GEMM_AR), 2
    assert plan(GEMM_AR, world, 2).chunks_per_rank == 2
    gpus = [SimulatedGpu(world, r, {}) for r in range(world)]
    gpus[1].sim = gpus[0].sim
    rows = []
    for rank in range(world):
        problem = make_problem(s, world, rank, torch.device("cpu"), torch.float32, seed=4)
        ctx = BenchWorld(rank, world, torch.device("cpu"), None, torch.float32, gpus[rank])
        [v] = fused_variants(BenchSpec(s, world, rank, torch.float32, CPU_DEFAULT, problem), ctx, [backend],
                             ["arrival"])
        assert v.name == f"syncopate {backend}/arrival" and v.na is None and v.expect == "out"
        v.setup()
        v.poison()
        assert v.result().shape == (64, 40) and torch.isnan(v.result()).all()
        rows.append((v, problem))
    gpus[0].sim.reduced.clear()  # what the poisoning launch summed: the GPU World poisons its staging buffers
    for v, _ in rows:
        v.run()
    for owner, (_, problem) in enumerate(rows):
        lo, hi = owner * 32, (owner + 1) * 32
        summed = gpus[0].sim.reduced[("ar", owner)][lo:hi]
        result = check_result(summed, problem.references["out"][lo:hi], rounding=problem.rounding[lo:hi])
        assert result.ok, f"owner {owner}: {result.reason}"


def test_ar_rows_the_compiler_refuses_say_why_they_do_not_run():
    """The sm backend pulls gathered chunks only, and the epilogue reduction
    sums reduce-scatter partials: neither row is compiled."""
    s = shape(GEMM_AR)
    problem = make_problem(s, 2, 0, torch.device("cpu"), torch.float32)
    gpu = BenchWorld(0, 2, torch.device("cpu"), None, torch.float32, SimulatedGpu(2, 0, {}))
    config = dataclasses.replace(CPU_DEFAULT, kernel="persistent")
    rows = fused_variants(BenchSpec(s, 2, 0, torch.float32, config, problem), gpu, ["ce", "sm"], ["arrival"],
                          reductions=["stream", "epilogue"])
    assert [r.name for r in rows] == ["syncopate ce/arrival", "syncopate ce/arrival/epi", "syncopate sm/arrival"]
    assert rows[0].na is None
    assert rows[1].na.startswith("not run:") and "gemm-rs only" in rows[1].na
    assert rows[2].na == fused.SM_REDUCED


@pytest.mark.parametrize("kernel", ["tma", "persistent", "persistent-flat"])
@pytest.mark.parametrize("which", ["a", "b", "c"])
def test_descriptor_kernels_refuse_a_strided_operand_before_launching(kernel, which):
    """The TMA and persistent GEMMs build descriptors that take each row as
    consecutive elements and never read the last stride: such an operand
    would silently read other elements, so the launch is refused, naming
    the operand and the fix. The one exception is the persistent kernel's
    B as an nn.Linear weight's ``.t()``, which it reads as stored
    (``B_NK``, the next test)."""
    from syncopate.bench import configs
    from syncopate.bench.gemm import launch_gemm

    class NeverLaunched:
        def __getitem__(self, grid):
            raise AssertionError("launched")

    m, k, n = 32, 16, 48
    tensors = {"a": torch.empty(m, k), "b": torch.empty(k, n), "c": torch.empty(m, n)}
    rows, cols = tensors[which].shape
    # the transpose of a contiguous matrix, or for the persistent kernel's B a view with every other column
    strided = torch.empty(rows, 2 * cols)[:, ::2] if which == "b" and kernel != "tma" else torch.empty(cols, rows).t()
    tensors[which] = strided
    with pytest.raises(ValueError, match=f"reads {which} through a tensor descriptor.*{which}.contiguous"):
        launch_gemm(NeverLaunched(), tensors["a"], tensors["b"], tensors["c"], configs.GemmConfig(kernel=kernel))


@pytest.mark.parametrize("kernel", ["persistent", "persistent-flat"])
def test_the_persistent_kernel_reads_a_linear_weight_as_stored(kernel):
    """B = W.t() with W (N x K) contiguous launches with ``B_NK``; a
    contiguous K x N B without it (the kernel's default)."""
    from syncopate.bench import configs
    from syncopate.bench.gemm import launch_gemm

    launched = []

    class Kernel:
        def __getitem__(self, grid):
            return lambda *args, **kwargs: launched.append(kwargs.get("B_NK"))

    m, k, n = 32, 16, 48
    a, c = torch.empty(m, k), torch.empty(m, n)
    launch_gemm(Kernel(), a, torch.empty(n, k).t(), c, configs.GemmConfig(kernel=kernel))
    launch_gemm(Kernel(), a, torch.empty(k, n), c, configs.GemmConfig(kernel=kernel))
    assert launched == [True, None]


def test_ar_plans_cut_columns_where_the_rows_are_fewer_than_the_ranks():
    """A decode step's M = 1 gives no rank rows of the reduction phase: the
    all-reduce cuts C's columns (N = hidden) then, and rows otherwise."""
    assert (plan_dim(GEMM_AR, 1, 2), plan_dim(GEMM_AR, 8, 2), plan_dim(GEMM_AR, 8, 3), plan_dim(GEMM_RS, 9, 2)) == \
        (1, 0, 1, 0)
    assert same_plan(plan(GEMM_AR, 2, dim=1), "all-reduce{tensor=c_ptr dim=1 world=2 size=N}")


def test_decode_ar_rows_sum_every_owners_columns_on_simulated_ranks():
    """M = 1 at W = 2 (a decode step): each owner's columns of the sum are
    right on the simulated ranks (nccl: the GPU runtime's ce reduces row
    chunks only)."""
    s, world = Shape(GEMM_AR, "1x48x40", 1, 48, 40, (), "decode"), 2
    gpus = [SimulatedGpu(world, r, {}) for r in range(world)]
    gpus[1].sim = gpus[0].sim
    rows = []
    for rank in range(world):
        problem = make_problem(s, world, rank, torch.device("cpu"), torch.float32, seed=4)
        ctx = BenchWorld(rank, world, torch.device("cpu"), None, torch.float32, gpus[rank])
        [v] = fused_variants(BenchSpec(s, world, rank, torch.float32, CPU_DEFAULT, problem), ctx, ["nccl"],
                             ["arrival"])
        assert v.na is None, v.na
        v.setup()
        v.poison()
        rows.append((v, problem))
    gpus[0].sim.reduced.clear()
    for v, _ in rows:
        v.run()
    for owner, (_, problem) in enumerate(rows):
        lo, hi = owner * 20, (owner + 1) * 20
        summed = gpus[0].sim.reduced[("ar", owner)][:, lo:hi]
        result = check_result(summed, problem.references["out"][:, lo:hi], rounding=problem.rounding[:, lo:hi])
        assert result.ok, f"owner {owner}: {result.reason}"


def test_push_rows_of_other_workloads_kernels_and_large_grids_say_why_they_do_not_run():
    """reduce=push is gemm-ar's one-shot on the pointer GEMM, for grids the GPU holds at once."""
    cases = ((GEMM_RS, "ptr", {}, "gemm-ar only"), (GEMM_AR, "persistent", {}, "the ptr kernel"),
             (GEMM_AR, "ptr", {"block_m": 1, "block_n": 1}, "programs must be resident at once"))
    for workload, kernel, tile, why in cases:
        s = shape(workload)
        problem = make_problem(s, 2, 0, torch.device("cpu"), torch.float32)
        gpu = BenchWorld(0, 2, torch.device("cpu"), None, torch.float32, SimulatedGpu(2, 0, {}))
        config = dataclasses.replace(CPU_DEFAULT, kernel=kernel, **tile)  # 1 x 1 tiles: 64 x 40 programs > 132
        rows = fused_variants(BenchSpec(s, 2, 0, torch.float32, config, problem), gpu, ["ce"], ["arrival"],
                              reductions=["push"])
        assert [r.name for r in rows] == ["syncopate ce/arrival/push"]
        assert rows[0].na is not None and why in rows[0].na, rows[0].na


def test_push_ar_rows_leave_every_rank_the_whole_sum_on_simulated_ranks():
    """Both ranks' push rows share one simulated world (it runs their kernels
    once every rank has launched); each rank's whole output is the sum, with
    no collective after the kernel, checked after its output was poisoned."""
    s, world = shape(GEMM_AR), 2
    gpus = [SimulatedGpu(world, r, {}) for r in range(world)]
    gpus[1].sim = gpus[0].sim
    rows = []
    for rank in range(world):
        problem = make_problem(s, world, rank, torch.device("cpu"), torch.float32, seed=5)
        ctx = BenchWorld(rank, world, torch.device("cpu"), None, torch.float32, gpus[rank])
        [v] = fused_variants(BenchSpec(s, world, rank, torch.float32, CPU_DEFAULT, problem), ctx, ["ce"],
                             ["arrival"], reductions=["push"])
        assert v.name == "syncopate ce/arrival/push" and v.na is None and v.expect == "out"
        v.setup()
        v.poison()
        rows.append((v, problem))
    for v, _ in rows:
        v.run()
    for rank, (v, problem) in enumerate(rows):
        result = check_result(v.result(), problem.references["out"], rounding=problem.rounding)
        assert result.ok, f"rank {rank}: {result.reason}"
