"""overlap-run: compile a workload's kernel with its plans, run it fused, check it.

    overlap-run examples/ag_gemm.py --world 4 --delivery late
    overlap-run examples/gemm_rs.py --plan 'reduce-scatter{tensor=c_ptr dim=0 order=direct}' --world 3
    overlap-run examples/ag_gemm.py --world 2 --delivery all --pipeline 'overlap{order=rotate}'

Simulated ranks on the CPU (Triton interpreter) are the default: W ranks in
one process, chunks delivered in the chosen order while the fused kernel
runs (``plan``, ``reversed``, ``random`` with ``--seed``, ``late``; ``all``
runs each). The reference is the collective done with torch, then the
original kernel. Prints one line per rank and delivery order with the max
error, and exits 1 on any mismatch (2 on a usage or compile error).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence

from syncopate.ir.contract import COMM_PROGRAMS
from syncopate.runtime.sim import DELIVERY_ORDERS

EXIT_MISMATCH, EXIT_ERROR = 1, 2


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
    if args.world < 1:
        parser.error(f"--world must be >= 1, got {args.world}")
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
    from syncopate.runtime.check import compile_workload, run_simulated
    from syncopate.runtime.sim import SimulationError
    from syncopate.runtime.workload import WorkloadError, load_workload

    try:
        workload = load_workload(args.workload)
        start = time.perf_counter()
        program = compile_workload(workload, args.world, args.pipeline, args.plan)
        print(f"compiled {workload.name} for W={args.world} with '{args.pipeline}' "
              f"in {time.perf_counter() - start:.1f}s -> {program.path}", flush=True)
        if args.emit:
            with open(args.emit, "w") as f:
                f.write(program.source)
    except (WorkloadError, PlanError, FrontendError, EmitError, DiagnosticException) as err:
        print(f"overlap-run: error: {err}", file=sys.stderr)
        return EXIT_ERROR

    orders = DELIVERY_ORDERS if args.delivery == "all" else (args.delivery,)
    failed = False
    for order in orders:
        try:
            results = run_simulated(workload, args.world, order, args.seed, program)
        except SimulationError as err:
            print(f"[{order}] FAIL: {err}", flush=True)
            failed = True
            continue
        except Exception as err:  # an interpreter error inside the user's launch code or kernel
            text = str(err).splitlines()[0] if str(err) else type(err).__name__
            if "SimulationError" in str(err):
                print(f"[{order}] FAIL: {text}", flush=True)
                failed = True
                continue
            raise
        for r in results:
            status = "ok" if r.ok else "MISMATCH"
            err = "nan (poisoned data reached the output)" if math.isnan(r.max_error) else f"{r.max_error:.3e}"
            print(f"[{order}] rank {r.rank}: max error {err}, {r.polls} flag polls: {status}", flush=True)
            failed = failed or not r.ok
    print("FAILED: the fused kernel differs from the reference" if failed else "all ranks match the reference")
    return EXIT_MISMATCH if failed else 0


def main_gpu(args: argparse.Namespace) -> int:
    """One rank of a GPU run (under torchrun)."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        print("overlap-run: error: --gpu needs the Triton compiler; unset TRITON_INTERPRET", file=sys.stderr)
        return EXIT_ERROR
    import torch
    import torch.distributed as dist

    from syncopate.ir.plans.errors import PlanError
    from syncopate.runtime.abi import AbiError
    from syncopate.runtime.check import compile_workload
    from syncopate.runtime.check_gpu import run_gpu
    from syncopate.runtime.gpu_world import GpuWorld, GpuWorldError
    from syncopate.runtime.workload import WorkloadError, load_workload

    try:
        world = GpuWorld.from_torchrun(spin_limit=args.spin_limit, comm_programs=args.sms, ce_lanes=args.ce_lanes)
        workload = load_workload(args.workload)
        program = compile_workload(workload, world.world, args.pipeline, args.plan)
        result = run_gpu(workload, world, args.seed, program, args.launches)
    except (GpuWorldError, WorkloadError, AbiError, PlanError) as err:
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
