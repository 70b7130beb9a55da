"""overlap-run: compile a workload's kernel with its plans, run it fused, check it.

    overlap-run examples/ag_gemm.py --world 4 --delivery late
    overlap-run examples/gemm_rs.py --plan 'reduce-scatter{tensor=c_ptr dim=0 order=direct}' --world 3
    overlap-run examples/ag_gemm.py --world 2 --delivery all --pipeline 'overlap{order=rotate}'

Simulated ranks on the CPU (Triton interpreter) are the default: W ranks in
one process, chunks delivered in the chosen order while the fused kernel
runs (``plan``, ``reversed``, ``random`` with ``--seed``, ``late``; ``all``
runs each). The reference is the collective done with torch, then the
original kernel. Prints one line per rank and delivery order with the max
error, and exits 1 on any mismatch. Anything else that stops the check (a
compile error, a workload function that fails or returns the wrong thing, a
plan that does not fit the world or the inputs, a kernel that cannot be
right) is one ``overlap-run: error:`` line and exit 1; usage errors exit 2.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence

from syncopate.ir.contract import COMM_PROGRAMS
from syncopate.runtime.sim.delivery import DELIVERY_ORDERS

EXIT_MISMATCH, EXIT_ERROR = 1, 1
MAX_SEED = 2**31 - 1  # workloads derive generator seeds from it (seed * 1000 + rank must fit in 64 bits)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="overlap-run",
        description="Fuse a workload's collective into its kernel and check the fused kernel "
        "against the unfused reference on simulated ranks.",
        epilog="A workload file holds KERNEL, PLANS, COLLECTIVES, make_inputs and launch "
        "(README: 'Workload files').",
    )
    parser.add_argument("workload", help="workload file, e.g. examples/ag_gemm.py")
    parser.add_argument("--plan", action="append", default=None, metavar="SPEC_OR_FILE",
                        help="plan spec(s) instead of the workload's PLANS (world= is added if missing)")
    parser.add_argument("--world", "-w", type=int, default=2, help="number of ranks W (default 2)")
    parser.add_argument("--delivery", default="plan", choices=(*DELIVERY_ORDERS, "all"),
                        help="chunk delivery order on simulated ranks (default plan)")
    parser.add_argument("--seed", type=int, default=0, help="seed for inputs and random delivery")
    parser.add_argument("--pipeline", "-p", default="overlap",
                        help="pass pipeline (default 'overlap'), e.g. 'overlap{order=rotate}'")
    parser.add_argument("--emit", metavar="PATH", help="also write the fused Triton source to PATH")
    parser.add_argument("--gpu", action="store_true",
                        help="run on GPUs, one process per GPU: torchrun --nproc-per-node=W overlap-run WORKLOAD --gpu "
                        "(backends from the pipeline, e.g. -p 'overlap{backend=sm}')")
    parser.add_argument("--launches", type=int, default=3,
                        help="--gpu: checks per rank, each with fresh inputs (default 3)")
    parser.add_argument("--sms", type=int, default=COMM_PROGRAMS,
                        help="--gpu: communication programs (SMs) the SM backend takes from compute while it copies "
                        f"(default {COMM_PROGRAMS})")
    parser.add_argument("--ce-lanes", type=int, default=None, metavar="N",
                        help="--gpu: streams the ce backend's copies are dealt over (concurrent transfers; "
                        "default: the GPU world's choice for W)")
    parser.add_argument("--spin-limit", type=int, default=0, metavar="POLLS",
                        help="debug: every flag spin gives up after POLLS polls and the run reports the rank, "
                        "program and chunk it waited for (default 0: unbounded)")
    args = parser.parse_args(argv)
    if not 0 <= args.seed <= MAX_SEED:
        parser.error(f"--seed must be between 0 and {MAX_SEED}, got {args.seed}")
    if args.world < 1:
        parser.error(f"--world must be >= 1, got {args.world}")
    from syncopate.passes import PipelineError, parse_pipeline

    try:
        parse_pipeline(args.pipeline)
    except PipelineError as err:
        parser.error(str(err))
    if args.ce_lanes is not None and args.ce_lanes < 1:
        parser.error(f"--ce-lanes must be >= 1, got {args.ce_lanes}")
    for name in ("launches", "sms", "spin_limit"):
        if getattr(args, name) < (1 if name == "launches" else 0):
            parser.error(f"--{name.replace('_', '-')} must be >= {1 if name == 'launches' else 0}, got {getattr(args, name)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.gpu:
        return main_gpu(args)
    os.environ.setdefault("TRITON_INTERPRET", "1")
    if os.environ["TRITON_INTERPRET"] != "1":
        print("overlap-run: error: simulated ranks need TRITON_INTERPRET=1 (unset it or set it to 1)", file=sys.stderr)
        return EXIT_ERROR

    from xdsl.utils.exceptions import DiagnosticException

    from syncopate.ir.frontend.errors import FrontendError
    from syncopate.ir.plans.errors import PlanError
    from syncopate.lowering.triton_emitter import EmitError
    from syncopate.runtime.abi import AbiError
    from syncopate.runtime.harness.check import RunError, check_synchronised, compile_workload, run_simulated
    from syncopate.runtime.sim.delivery import SimulationError
    from syncopate.runtime.harness.workload import WorkloadError, load_workload

    def error(err: BaseException | str) -> int:
        print(f"overlap-run: error: {_message(err)}", file=sys.stderr)
        return EXIT_ERROR

    try:
        workload = load_workload(args.workload)
        start = time.perf_counter()
        program = compile_workload(workload, args.world, args.pipeline, args.plan)
        check_synchronised(program, args.pipeline)
        print(f"compiled {workload.name} for W={args.world} with '{args.pipeline}' "
              f"in {time.perf_counter() - start:.1f}s -> {program.path}", flush=True)
        if args.emit:
            with open(args.emit, "w") as f:
                f.write(program.source)
    except (WorkloadError, PlanError, FrontendError, EmitError, DiagnosticException, RunError) as err:
        return error(err)
    except OSError as err:  # --emit to a directory or a missing folder
        return error(f"{err.filename}: {err.strerror}")
    except Exception as err:  # a bug of syncopate's: still one line, with how to see more
        return error(_internal(err, "compiling"))

    orders = DELIVERY_ORDERS if args.delivery == "all" else (args.delivery,)
    failed: list[str] = []
    for order in orders:
        try:
            results = run_simulated(workload, args.world, order, args.seed, program)
        except (WorkloadError, RunError, AbiError) as err:  # misuse: the same under every order
            return error(err)
        except SimulationError as err:  # a kernel that cannot be right: a failure of this order, not misuse
            lines = str(err).splitlines() or [type(err).__name__]
            more = f"\n  (+{len(lines) - MAX_DETAIL} more)" if len(lines) > MAX_DETAIL else ""
            print(f"[{order}] FAIL: " + "\n  ".join(lines[:MAX_DETAIL]) + more, flush=True)
            failed.append(f"{order}: {lines[0].rstrip(':')}")
            continue
        except Exception as err:
            return error(_internal(err, f"running delivery '{order}'"))
        for r in results:
            status = "ok" if r.ok else "MISMATCH"
            err = "nan (poisoned data reached the output)" if math.isnan(r.max_error) else f"{r.max_error:.3e}"
            print(f"[{order}] rank {r.rank}: max error {err}, {r.polls} flag polls: {status}", flush=True)
        bad = [r.rank for r in results if not r.ok]
        if bad:
            failed.append(f"{order}: rank(s) {', '.join(map(str, bad))} differ")
    if failed:
        print(f"FAILED: the fused kernel differs from the reference ({'; '.join(failed)})")
        return EXIT_MISMATCH
    print("all ranks match the reference")
    return 0


MAX_DETAIL = 6  # lines of a simulation failure shown (a chunk per line: thousands on large grids)


def _internal(err: Exception, doing: str) -> str:
    if os.environ.get("SYNCOPATE_TRACEBACK") == "1":
        raise err
    text = (str(err).strip().splitlines() or [""])[0]
    return (f"internal error while {doing}: {type(err).__name__}: {text} "
            "(set SYNCOPATE_TRACEBACK=1 for the traceback, and please report it)")


def _message(err: BaseException | str) -> str:
    return str(err).strip() or type(err).__name__


def main_gpu(args: argparse.Namespace) -> int:
    """One rank of a GPU run (under torchrun)."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        print("overlap-run: error: --gpu needs the Triton compiler; unset TRITON_INTERPRET", file=sys.stderr)
        return EXIT_ERROR
    import torch
    import torch.distributed as dist
    from xdsl.utils.exceptions import DiagnosticException

    from syncopate.ir.frontend.errors import FrontendError
    from syncopate.ir.plans.errors import PlanError
    from syncopate.lowering.triton_emitter import EmitError
    from syncopate.runtime.abi import AbiError
    from syncopate.runtime.harness.check import RunError, check_synchronised, compile_workload
    from syncopate.runtime.harness.check_gpu import run_gpu
    from syncopate.runtime.gpu import GpuWorld, GpuWorldError
    from syncopate.runtime.harness.workload import WorkloadError, load_workload

    try:
        world = GpuWorld.from_torchrun(spin_limit=args.spin_limit, comm_programs=args.sms, ce_lanes=args.ce_lanes)
        workload = load_workload(args.workload)
        program = compile_workload(workload, world.world, args.pipeline, args.plan)
        check_synchronised(program, args.pipeline)
        result = run_gpu(workload, world, args.seed, program, args.launches)
    except (GpuWorldError, WorkloadError, AbiError, PlanError, RunError, FrontendError, EmitError,
            DiagnosticException) as err:
        print(f"overlap-run: error: rank {os.environ.get('RANK')}: {err}", file=sys.stderr)
        return EXIT_ERROR
    err = "nan (poisoned data reached the output)" if math.isnan(result.max_error) else f"{result.max_error:.3e}"
    print(f"[gpu {args.pipeline}] rank {result.rank}/{world.world}: max error {err}: "
          f"{'ok' if result.ok else 'MISMATCH'}", flush=True)
    failed = torch.tensor([0 if result.ok else 1], device=world.device)
    dist.all_reduce(failed)
    dist.destroy_process_group()
    return EXIT_MISMATCH if int(failed) else 0


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
