"""Every shipped example x backend x tile order on real GPUs, in one process
group (torchrun --nproc-per-node=W test/e2e/gpu_matrix.py), plus the launch
stress checks of issue 5:

* ``launches``: 2000 back-to-back fused launches with no host sync or flag
  reset between them, then a check (epoch-numbered flags never read stale);
* ``lanes``: ce transfers dealt over 3 streams (GpuWorld.ce_lanes), with
  plans cut into 2 chunks per rank so even W = 2 has concurrent copies;
* ``graph``: one fused launch (kernel + communication stream) captured in a
  CUDA graph and replayed 50 times, the gathered buffer poisoned before each
  replay and every result checked, then one eager launch of the same
  configuration;
* ``debug``: a chunk whose transfer is dropped with the spin limit set: the
  launch must end and name the rank, program and chunk;
* ``rs back-to-back``: 8 gemm-rs launches (the bench's persistent GEMM, ce,
  2 chunks per rank, stream and epilogue reduction) captured in one CUDA
  graph with inputs alternating between b and 2b, replayed 20 times with no
  host sync, then every launch's rows checked: a launch that overwrote a
  staging slot before its owner read it would mix partials of b and 2b
  (the staging tokens must prevent it; nothing else orders the ranks);
* ``corpus``: every test/corpus kernel that fuses, through its workload
  (its own, or the one test/unit/corpus/test_corpus_fusion.py derives from
  ``FUSE``), with ``overlap{backend=ce order=arrival}``
  (``SYNCOPATE_CORPUS_ONLY=stem,stem`` runs only those kernels);
* ``back-to-back``: 200 ag_gemm launches per backend (ce, sm, nccl),
  eagerly and as CUDA-graph replays, with fresh inputs each launch, no host
  sync or barrier, and randomly slowed producers (the readiness and release
  tokens of runtime/gpu/gather_tokens.py must order them).

Prints one ``MATRIX <case> rank r/W: ok|FAIL <why>`` line per case and rank;
test/e2e/test_gpu_world.py runs it and requires every line to be ok. Uses
overlap-run's own check (runtime/check_gpu.run_gpu).
"""

from __future__ import annotations

import os
import random
import sys
import traceback
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

GATHERS = ["ag_gemm.py", "ag_gemm_k.py", "attention_ag_kv.py", "a2a_grouped_gemm.py"]
CASES = (
    [(ex, f"overlap{{backend={b} order={o}}}") for ex in GATHERS for b in ("ce", "sm", "nccl") for o in ("arrival", "none")]
    + [("ag_gemm.py", f"overlap{{backend={b} order=rotate}}") for b in ("ce", "sm", "nccl")]
    + [("gemm_rs.py", f"overlap{{backend={b} order={o}}}") for b in ("ce", "nccl") for o in ("arrival", "none")]
    + [("gemm_ar.py", f"overlap{{backend={b} order=arrival}}") for b in ("ce", "nccl")]
    + [(ex, "overlap{backend=ce order=arrival}") for ex in ("ag_gemm_persistent.py", "gemm_rs_persistent.py")]
    + [("gemm_rs_tma.py", f"overlap{{backend=ce order=arrival{r}}}") for r in ("", " reduce=epilogue")]
)
# gemm_rs_tma's 16-row tiles hold one owner's rows at W = 2 and 3 only (the
# epilogue reduction refuses tiles that straddle two owners)
EPILOGUE_WORLDS = (2, 3)
LANES = 3
# (example, pipeline, plan specs) run with ce_lanes=LANES
LANE_CASES = [
    ("ag_gemm.py", "overlap{backend=ce order=arrival}", ["all-gather{tensor=a_ptr dim=0 chunks_per_rank=2}"]),
    ("gemm_rs.py", "overlap{backend=ce order=arrival}", ["reduce-scatter{tensor=c_ptr dim=0 chunks_per_rank=2}"]),
    ("gemm_ar.py", "overlap{backend=ce order=arrival}", ["all-reduce{tensor=c_ptr dim=0 chunks_per_rank=2}"]),
    ("a2a_grouped_gemm.py", "overlap{backend=ce order=arrival}", None),
    ("gemm_rs_tma.py", "overlap{backend=ce order=arrival reduce=epilogue}",
     ["reduce-scatter{tensor=c_ptr dim=0 chunks_per_rank=2}"]),
]


def say(world, case: str, ok: bool, why: str = "") -> None:
    print(f"MATRIX {case} rank {world.rank}/{world.world}: {'ok' if ok else 'FAIL ' + why}", flush=True)


def matrix(world, only: str | None) -> None:
    from syncopate.runtime.harness.check import compile_workload
    from syncopate.runtime.harness.check_gpu import run_gpu
    from syncopate.runtime.harness.workload import load_workload

    cases = [(ex, pipe, None, 1) for ex, pipe in CASES] + [(ex, pipe, plans, LANES) for ex, pipe, plans in LANE_CASES]
    for example, pipeline, plans, lanes in cases:
        case = f"{example} {pipeline}" + (f" {plans[0]}" if plans else "") + (f" lanes={lanes}" if lanes > 1 else "")
        if only and only not in case:
            continue
        straddles = "reduce=epilogue" in pipeline and world.world not in EPILOGUE_WORLDS
        saved, world.ce_lanes = world.ce_lanes, lanes
        try:
            workload = load_workload(str(EXAMPLES / example))
            program = compile_workload(workload, world.world, pipeline, plans)
            result = run_gpu(workload, world, seed=7, program=program, launches=2)
            say(world, case, result.ok and not straddles,
                "ran, but tiles straddle owners: must be refused" if straddles else f"max error {result.max_error}")
        except Exception as err:  # report and go on: one case must not hide the others
            if straddles and "with the reduction in its epilogue it would wait" in str(err):
                say(world, case, True)  # refused, as it must be
            else:
                say(world, case, False, f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
                traceback.print_exc()
        finally:
            world.ce_lanes = saved
        world.barrier()


def _ag_setup(world, backend: str, lanes: int = 1):
    """ag_gemm fused with ``backend`` (4 chunks per rank, ``lanes`` ce lanes):
    (launch callable, gathered buffer, own rows, reference)."""
    from syncopate.runtime.harness.check import compile_workload
    from syncopate.runtime.fused import FusedKernel
    from syncopate.runtime.harness.workload import load_workload, shard_bounds

    workload = load_workload(str(EXAMPLES / "ag_gemm.py"))
    plans = ["all-gather{tensor=a_ptr dim=0 chunks_per_rank=4}"] if lanes > 1 else None
    program = compile_workload(workload, world.world, f"overlap{{backend={backend}}}", plans)
    shards = [{k: v.cuda() for k, v in workload.make_inputs(s, world.world, 11).items()} for s in range(world.world)]
    full = torch.cat([s["a"] for s in shards]).contiguous()
    reference = workload.launch(workload.kernel, full, shards[world.rank]["b"])
    buf = world.symmetric(full)
    start, size = shard_bounds(full.shape[0], world.world, world.rank)
    buf.fill_(float("nan"))
    buf[start:start + size].copy_(shards[world.rank]["a"])
    torch.cuda.synchronize()
    world.barrier()
    fused = FusedKernel(program, workload.kernel, world.context(ce_lanes=lanes))
    world.last_program = program
    return (lambda: workload.launch(fused, buf, shards[world.rank]["b"])), buf, (start, size), reference


def many_launches(world, backend: str, count: int = 2000) -> None:
    case = f"launches x{count} ag_gemm backend={backend}"
    saved, world.spin_limit = world.spin_limit, 0  # a bounded spin synchronizes after each launch
    try:
        run, _buf, _own, reference = _ag_setup(world, backend)
        outs = [run() for _ in range(count)]
        torch.cuda.synchronize()
        bad = [i for i in (0, count // 2, count - 1) if not torch.allclose(outs[i], reference, atol=2e-2, rtol=2e-2)]
        epochs = max(int(entry.sync.epoch.item()) for entry in world.launches.values())
        say(world, case, not bad and epochs >= count, f"launches {bad} differ, epoch {epochs}")
    except Exception as err:
        say(world, case, False, f"{type(err).__name__}: {err}")
        traceback.print_exc()
    world.spin_limit = saved
    world.barrier()


def graph_replays(world, backend: str, replays: int = 50, lanes: int = 1) -> None:
    case = f"graph x{replays} ag_gemm backend={backend}" + (f" chunks_per_rank=4 lanes={lanes}" if lanes > 1 else "")
    try:
        run, buf, (start, size), reference = _ag_setup(world, backend, lanes)
        own = buf[start:start + size].clone()
        run()  # warm-up: compiles and builds the launch tables outside the capture
        torch.cuda.synchronize()
        world.barrier()
        graph = torch.cuda.CUDAGraph()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream), torch.cuda.graph(graph, stream=stream):
            out = run()
        torch.cuda.synchronize()
        world.barrier()
        bad = []
        for i in range(replays):
            buf.fill_(float("nan"))
            buf[start:start + size].copy_(own)
            out.fill_(float("nan"))
            torch.cuda.synchronize()
            world.barrier()
            graph.replay()
            torch.cuda.synchronize()
            if not torch.allclose(out, reference, atol=2e-2, rtol=2e-2):
                bad.append(i)
            world.barrier()
        # the same configuration eagerly after the replays (the host epoch must catch up)
        buf.fill_(float("nan"))
        buf[start:start + size].copy_(own)
        torch.cuda.synchronize()
        world.barrier()
        eager = run()
        torch.cuda.synchronize()
        if not torch.allclose(eager, reference, atol=2e-2, rtol=2e-2):
            bad.append("eager after replays")
        say(world, case, not bad, f"replays {bad[:5]} differ")
    except Exception as err:
        say(world, case, False, f"{type(err).__name__}: {err}")
        traceback.print_exc()
    world.barrier()


def back_to_back(world, backend: str, graph: bool, launches: int = 200) -> None:
    """ag_gemm launched as a model launches it: back to back, each launch
    with fresh random A shards and B, no host sync or barrier anywhere in
    the loop, and before a random third of the launches one random rank's
    compute stream sleeps (a slow producer) before it writes its rows. Each
    launch first poisons the whole gathered buffer, own rows included, so a
    peer that copies too early or too late reads NaN or another launch's
    rows. ``graph``: one launch captured once and replayed, its inputs
    copied into the captured buffers before each replay. Every output is
    checked after the loop."""
    from syncopate.runtime.harness.check import compile_workload
    from syncopate.runtime.fused import FusedKernel
    from syncopate.runtime.harness.workload import load_workload, shard_bounds

    case = f"back-to-back {'graph' if graph else 'eager'} x{launches} ag_gemm backend={backend}"
    saved, world.spin_limit = world.spin_limit, 0  # a bounded spin synchronizes the host after each launch
    try:
        workload = load_workload(str(EXAMPLES / "ag_gemm.py"))
        program = compile_workload(workload, world.world, f"overlap{{backend={backend}}}")
        w, r = world.world, world.rank
        inputs = [[{k: v.cuda() for k, v in workload.make_inputs(s, w, 500 + i).items()} for s in range(w)]
                  for i in range(launches)]
        full = torch.cat([x["a"] for x in inputs[0]]).contiguous()
        start, size = shard_bounds(full.shape[0], w, r)
        buf = world.symmetric(full)
        fused = FusedKernel(program, workload.kernel, world.context())
        plan = random.Random(99)  # the same slow ranks on every rank's copy of the plan
        slow = [plan.randrange(3 * w) for _ in range(launches)]  # < w: that rank sleeps
        cycles = [plan.choice((20_000, 200_000, 2_000_000)) for _ in range(launches)]
        own, b = torch.empty_like(inputs[0][r]["a"]), torch.empty_like(inputs[0][r]["b"])

        def step():
            buf.fill_(float("nan"))
            buf[start:start + size].copy_(own)
            return workload.launch(fused, buf, b)

        own.copy_(inputs[0][r]["a"])
        b.copy_(inputs[0][r]["b"])
        step()  # compiles and builds the launch tables
        torch.cuda.synchronize()
        world.barrier()  # set-up only: the loop below has none
        if graph:
            g, stream = torch.cuda.CUDAGraph(), torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream), torch.cuda.graph(g, stream=stream):
                out = step()
            torch.cuda.synchronize()
            world.barrier()
        outs = []
        for i in range(launches):
            if slow[i] == r:
                torch.cuda._sleep(cycles[i])
            own.copy_(inputs[i][r]["a"])
            b.copy_(inputs[i][r]["b"])
            if graph:
                g.replay()
                outs.append(out.clone())
            else:
                outs.append(step())
        torch.cuda.synchronize()
        bad = []
        for i in range(launches):
            want = workload.launch(workload.kernel, torch.cat([x["a"] for x in inputs[i]]), inputs[i][r]["b"])
            if not torch.allclose(outs[i], want, atol=2e-2, rtol=2e-2):
                bad.append(i)
        say(world, case, not bad, f"{len(bad)} of {launches} launches differ: {bad[:8]}")
    except Exception as err:
        say(world, case, False, f"{type(err).__name__}: {err}")
        traceback.print_exc()
    finally:
        world.spin_limit = saved
    world.barrier()


def debug_spin(world) -> None:
    from syncopate.runtime.gpu import GpuWorldError

    case = "debug spin-limit lost chunk"
    saved = (world.spin_limit, world.lost)
    try:
        run, *_ = _ag_setup(world, "ce")
        plan = world.last_program.plans[0]
        lost = next(c for c in plan.chunks if c.src.value.data != c.dst.value.data and c.dst.value.data == 1)
        name, cid = plan.sym_name.data, lost.chunk_id.value.data
        world.spin_limit, world.lost = 20000, frozenset({(name, cid)})
        try:
            run()
            torch.cuda.synchronize()
            raised = ""
        except GpuWorldError as err:
            raised = str(err)
        print(f"debug report rank {world.rank}: {raised}", flush=True)
        # the lost chunk goes to rank 1 only; rank 1 must report it, nobody else may fail
        waits_for_it = f"chunk {cid} of @{name}" in raised and f"rank {world.rank}" in raised and "program" in raised
        flags = torch.tensor([1 if waits_for_it else 0], device=world.device)
        torch.distributed.all_reduce(flags)
        say(world, case, int(flags) == 1 and (waits_for_it or not raised) and (world.rank != 1 or waits_for_it),
            f"report: '{raised}'")
    except Exception as err:
        say(world, case, False, f"{type(err).__name__}: {err}")
        traceback.print_exc()
    finally:
        world.spin_limit, world.lost = saved
    world.barrier()


def rs_back_to_back(world, reduce: str, launches: int = 8, replays: int = 20) -> None:
    from syncopate.bench.check import check_result, staged_sum_rounding
    from syncopate.bench.configs import GemmConfig
    from syncopate.bench.fused import program_for
    from syncopate.bench.gemm import gemm_kernel, launch_gemm
    from syncopate.runtime.fused import FusedKernel
    from syncopate.runtime.gpu import epilogue_comm_sms

    case = f"rs back-to-back graph {launches}x{replays} reduce={reduce}"
    try:
        m, k, n, w, r = 4096, 2048, 4096, world.world, world.rank
        cfg = GemmConfig(128, 256, 64, 8, 3, "persistent")
        kernel = FusedKernel(program_for("gemm-rs", w, "ce", "arrival", cfg, 2, reduce), gemm_kernel(cfg),
                             world.context())
        gen = torch.Generator().manual_seed(5)
        inputs = [(torch.randn(m, k, generator=gen), torch.randn(k, n, generator=gen) / 32) for _ in range(w)]
        lo, hi = r * m // w, (r + 1) * m // w
        reference = sum(a[lo:hi] @ b for a, b in inputs).to(world.device)
        # the reductions sum W bf16 partials, rounding after each addition: the bound widens by
        # exactly what that order can add (bench/check.py, staged_sum_rounding)
        abs_partials = sum((a[lo:hi].bfloat16().float() @ b.bfloat16().float()).abs() for a, b in inputs)
        rounding = staged_sum_rounding(abs_partials, w, torch.bfloat16).to(world.device)
        a = inputs[r][0].to(world.device, torch.bfloat16)
        bs = [(inputs[r][1] * scale).to(world.device, torch.bfloat16) for scale in (1, 2)]
        outs = [torch.full((m, n), float("nan"), dtype=torch.bfloat16, device=world.device) for _ in range(launches)]
        reserved = epilogue_comm_sms(world.ce_lanes) if reduce == "epilogue" else 0
        for i in range(launches):  # eager first launches: staging, and the tables of each tensor set
            launch_gemm(kernel, a, bs[i % 2], outs[i], cfg, reserved)
        torch.cuda.synchronize()
        world.barrier()
        graph, stream = torch.cuda.CUDAGraph(), torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream), torch.cuda.graph(graph, stream=stream):
            for i in range(launches):
                launch_gemm(kernel, a, bs[i % 2], outs[i], cfg, reserved)
        torch.cuda.synchronize()
        world.barrier()
        for _ in range(replays):
            graph.replay()
        torch.cuda.synchronize()
        bad = [(i, check_result(outs[i][lo:hi], reference * (1 + i % 2), rounding=rounding * (1 + i % 2)).reason)
               for i in range(launches)]
        bad = [b for b in bad if b[1]]
        say(world, case, not bad, f"launches {bad[:3]}")
    except Exception as err:
        say(world, case, False, f"{type(err).__name__}: {err}")
        traceback.print_exc()
    world.barrier()


CORPUS_PIPELINE = "overlap{backend=ce order=arrival}"
# the corpus harness (FUSED, _workload) lives beside the CPU corpus tests
sys.path.insert(0, str(ROOT / "test" / "unit" / "corpus"))


def corpus_paths() -> list[Path]:
    """The corpus kernels that fuse (test/unit/corpus/test_corpus_fusion.py's list)."""
    from test_corpus_fusion import FUSED

    return list(FUSED)


def corpus(world) -> None:
    from syncopate.runtime.harness.check import compile_workload
    from syncopate.runtime.harness.check_gpu import run_gpu
    from test_corpus_fusion import _workload

    only = [s for s in os.environ.get("SYNCOPATE_CORPUS_ONLY", "").split(",") if s]
    for path in corpus_paths():
        if only and path.stem not in only:
            continue
        case = f"corpus {path.stem} {CORPUS_PIPELINE}"
        try:
            workload = _workload(path)
            program = compile_workload(workload, world.world, CORPUS_PIPELINE)
            # compile times differ per rank (the pipeline's proofs, then Triton's
            # JIT at the first launch): one checked launch with an unbounded spin
            # warms both, then the ranks line up so the bounded spins count
            # launch time only
            saved, world.spin_limit = world.spin_limit, 0
            try:
                warm = run_gpu(workload, world, seed=7, program=program, launches=1)
            finally:
                world.spin_limit = saved
            world.barrier()
            result = run_gpu(workload, world, seed=8, program=program, launches=2)
            result = result if warm.ok else warm
            say(world, case, result.ok, f"max error {result.max_error}")
        except Exception as err:  # report and go on: one kernel must not hide the others
            say(world, case, False, f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
            traceback.print_exc()
        world.barrier()


def main() -> int:
    os.environ.pop("TRITON_INTERPRET", None)
    from syncopate.runtime.gpu import GpuWorld

    only = sys.argv[1] if len(sys.argv) > 1 else None
    # bounded spins (about 10 s): a broken case reports instead of hanging the whole run
    world = GpuWorld.from_torchrun(spin_limit=10_000_000)
    if only not in ("stress", "back-to-back", "corpus"):
        matrix(world, only)
    if only in (None, "corpus"):
        corpus(world)
    if only in (None, "stress"):
        for backend in ("ce", "sm"):
            many_launches(world, backend)
            graph_replays(world, backend)
        graph_replays(world, "nccl")  # NCCL collectives captured with the fused kernel
        graph_replays(world, "ce", lanes=LANES)  # forked and joined lane streams inside the capture
        debug_spin(world)
        for reduce in ("stream", "epilogue"):
            rs_back_to_back(world, reduce)
    if only in (None, "stress", "back-to-back"):
        for backend in ("ce", "sm", "nccl"):
            for graph in (False, True):
                back_to_back(world, backend, graph)
    torch.distributed.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
