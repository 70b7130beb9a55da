"""overlap-bench: syncopate's fused kernels against cuBLAS+NCCL, async-TP (or torch's symmetric-memory
all-reduce) and Triton+NCCL.

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \\
        torchrun --nproc-per-node=2 -m syncopate.tools.overlap_bench --quick
    torchrun --nproc-per-node=2 $(which overlap-bench) --shapes anchor --phases explore --autotune
    torchrun --nproc-per-node=2 $(which overlap-bench) --shapes anchor --phases confirm
    overlap-bench --cpu            # no GPU: the whole pipeline on one gloo rank, Triton interpreter
    overlap-bench --cpu --world 2 --workload gemm-ar   # two local gloo ranks
    overlap-bench --list-shapes --world 2

One process per GPU, one process group, one run: for every workload and
shape it checks each variant against an fp32 reference, then times the
checked variants round-robin in a seeded shuffled order per round
(``--rounds``, ``--seed``; CUDA events, median over the timed launches
after warm-up, max over ranks), and rank 0 prints a table per workload,
shape and phase, then a summary against the targets (bench/summary.py),
and writes CSV, JSON and a bar chart to ``--out``.

Phases (``--phases``): ``explore`` times every requested syncopate row
(best-of-N: a table to explore, not a headline; ``--autotune`` stores its
best row for later runs); ``confirm`` times the baselines and one
syncopate row per shape chosen before anything is timed (the autotune
cache's choice from an earlier run, else a fixed rule; bench/headline.py),
which is the headline. See docs/performance.md for the protocol.

Exit status: 0 when every row is ok or n/a, 1 when any row is WRONG, 2 on a
usage or setup error.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

EXIT_WRONG, EXIT_ERROR = 1, 2
DTYPES = {"bf16": "bfloat16", "fp16": "float16"}  # --dtype -> torch's name (torch is imported late)
FLUSH_BYTES = 256 << 20  # --flush-l2: well above the 50-60 MB L2 of an H100/H200


def _csv(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="overlap-bench",
        description="Benchmark syncopate's fused multi-GPU kernels against cuBLAS+NCCL, PyTorch async-TP and "
        "the unfused Triton kernel + NCCL, with compute-alone, communication-alone and bound rows. "
        "Run one process per GPU: torchrun --nproc-per-node=W overlap-bench ...",
        epilog="Every row is checked against an fp32 reference before it is timed; a row that fails is WRONG "
        "(exit status 1). Rows that cannot run say 'n/a: <reason>'.",
    )
    _selection_arguments(parser)
    _row_arguments(parser)
    _run_arguments(parser)
    args = parser.parse_args(argv)
    _check_arguments(parser, args)
    return args


def _selection_arguments(parser: argparse.ArgumentParser) -> None:
    """What to run: workloads, shapes, output, and how long to time each row."""
    from syncopate.bench.shapes import WORKLOADS

    parser.add_argument("--workload", default=None, metavar="LIST",
                        help=f"comma list of workloads (default all: {','.join(WORKLOADS)}), or tp-layer alone "
                        "(a tensor-parallel decoder layer: torch TP, async-TP, syncopate ops)")
    parser.add_argument("--shapes", default=None, metavar="LIST",
                        help="comma list of shape names, labels at this W (AG-8192x8192x14336) or groups "
                        "(anchor, llama, quick, paper, decode, all), or any GEMM as global MxKxN; default every shape but the "
                        "paper's and the decode ones, "
                        "or the quick group with --quick")
    parser.add_argument("--quick", action="store_true",
                        help="the quick shape subset and fewer iterations (2 rounds of warm-up 3, 5 timed) unless given")
    parser.add_argument("--out", default="bench-results", metavar="DIR",
                        help="directory for results.csv, results.json, results.png (default bench-results)")
    parser.add_argument("--iters", type=int, default=None, help="timed iterations per row and round (default 10)")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up iterations per row and round (default 2)")
    parser.add_argument("--rounds", type=int, default=None, metavar="R",
                        help="time the rows of each shape round-robin in R rounds of --warmup + --iters launches "
                        "each, after every row is checked: GPU speed drifts within a run, and round-robin spreads "
                        "it over all rows instead of biasing those timed late; 1: one row after another "
                        "(default 5, 2 with --quick, 1 with --cpu)")


def _row_arguments(parser: argparse.ArgumentParser) -> None:
    """Which syncopate rows to run: seeds, phases, backends, orders, chunks, lanes, tiles."""
    from syncopate.bench.configs import SHAPE_TILE
    from syncopate.bench.fused import BACKENDS, ORDERS
    from syncopate.bench.report import EXPLORE

    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the random inputs and of the row order in each timing round (default 0)")
    parser.add_argument("--no-shuffle", action="store_true",
                        help="time the rows of every round in table order instead of a seeded shuffle")
    parser.add_argument("--phases", default=EXPLORE, metavar="LIST",
                        help="explore (every requested syncopate row; best-of-N, not a headline) and/or confirm "
                        "(the baselines and one syncopate row per shape chosen before timing: the autotune cache's "
                        "choice from an earlier run, else ce/arrival; the headline); default explore")
    parser.add_argument("--direct", action="store_true",
                        help="explore: add the /direct twin of every ag-gemm syncopate row (the producer writes the "
                        "shard straight into the symmetric buffer; no staging copy in the timed region)")
    parser.add_argument("--backends", default=",".join(BACKENDS), metavar="LIST",
                        help=f"syncopate backends to run (default {','.join(BACKENDS)}); 'auto' runs the autotune "
                        "cache's best row for the shape (one row, 'syncopate auto=ce/arrival/c2') when it has one, "
                        "else select-backend's own pick")
    parser.add_argument("--orders", default=",".join(ORDERS), metavar="LIST",
                        help=f"syncopate tile orders to run (default {','.join(ORDERS)})")
    parser.add_argument("--chunks", default="1", metavar="LIST",
                        help="syncopate rows per chunks_per_rank of the plan (chunk granularity), e.g. 1,2,4 (default 1)")
    parser.add_argument("--reduce", default="stream", metavar="LIST",
                        help="ce rows per reduction: stream (the communication stream sums the partials "
                        "after the tiles), epilogue (gemm-rs: the owner's tiles sum the staged partials, "
                        "overlap{reduce=epilogue}; rows .../epi) and/or push (gemm-ar: every tile pushes its "
                        "partial to its peers and sums all of them, one kernel, overlap{reduce=push}; rows "
                        ".../push; small outputs only); default stream")
    parser.add_argument("--lanes", default=None, metavar="LIST",
                        help="ce backend rows per number of ce lanes (concurrent copy streams of the runtime), "
                        "e.g. 1,2,3 (default: GpuWorld's default at this W)")
    parser.add_argument("--tiles", default=SHAPE_TILE, metavar="LIST",
                        help="ag-gemm, gemm-rs, gemm-ar and a2a-gemm syncopate rows per GEMM tile BMxBN or BMxBNxBK (rows .../t128x128), "
                        f"'{SHAPE_TILE}' for the shape's Triton configuration (the 'Triton alone' row's); smaller tiles "
                        f"shorten the wait after the last chunk; default {SHAPE_TILE}")
    parser.add_argument("--attn-waits", default="hoist", metavar="LIST",
                        help="ag-attn rows per placement of the K/V waits: hoist (one wait per tile above the loop "
                        "over the sequence) and/or walk (a wait per iteration that skips chunks already seen; "
                        "rows .../walk); default hoist")


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    """How the run times and where it runs: L2, graphs, the debug spin, tuning, CPU mode."""
    parser.add_argument("--flush-l2", action="store_true",
                        help="zero a 256 MiB buffer before every timed iteration (cold L2; default warm)")
    parser.add_argument("--cuda-graph", action="store_true",
                        help="time replays of a CUDA graph of each row's launch (checked before timing) instead of "
                        "eager launches: removes host launch overhead; rows that cannot be captured fall back to eager")
    parser.add_argument("--spin-limit", type=int, default=0, metavar="N",
                        help="debug mode of the GPU world: a fused kernel's wait gives up after N polls and its row "
                        "reports n/a instead of hanging (slows the waits; default 0 = off)")
    parser.add_argument("--sms", type=int, default=None, metavar="N",
                        help="communication programs (SMs) of the sm backend's rows (default: GpuWorld's)")
    parser.add_argument("--tune-gemm", action="store_true",
                        help="before each GEMM shape, time every candidate Triton GEMM config (pointer, TMA and persistent "
                        "TMA kernels), "
                        "checked first; the fastest is used for that shape's Triton and syncopate rows and cached "
                        "(later runs use the cached config)")
    parser.add_argument("--autotune", action="store_true",
                        help="store the best syncopate row (backend, order, chunks, lanes, tile) per "
                        "workload/shape/world/device in the cache")
    parser.add_argument("--cache", default=None, metavar="PATH",
                        help="autotune cache file (default ~/.cache/syncopate/autotune.json)")
    parser.add_argument("--cpu", action="store_true",
                        help="no GPU, no torchrun: one gloo rank (--world W: W local ranks), tiny fp32 shapes, "
                        "Triton interpreter (exercises checking, timing and reporting; the times mean nothing)")
    parser.add_argument("--list-shapes", action="store_true", help="print the shape table and exit")
    parser.add_argument("--dtype", default="bf16", choices=sorted(DTYPES),
                        help="element type of every row, baselines included (GPU runs; --cpu runs fp32); "
                             "tuned choices are kept per dtype (default bf16)")
    parser.add_argument("--world", type=int, default=None,
                        help="world size for --list-shapes labels; with --cpu, the local gloo ranks to start "
                        "(a GPU run uses torchrun's WORLD_SIZE)")


def _check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Values argparse cannot check, each refused with the option's name; the list options split."""
    from syncopate.bench.configs import SHAPE_TILE, parse_tile
    from syncopate.bench.fused import BACKENDS, ORDERS, REDUCTIONS
    from syncopate.bench.report import CONFIRM, EXPLORE

    for name in ("iters", "warmup", "rounds"):
        value = getattr(args, name)
        if value is not None and value < (0 if name == "warmup" else 1):
            parser.error(f"--{name} must be >= {0 if name == 'warmup' else 1}, got {value}")
    try:
        args.chunks = [int(c) for c in _csv(args.chunks)]
    except ValueError:
        parser.error(f"--chunks: not a list of integers: '{args.chunks}'")
    if not args.chunks or min(args.chunks) < 1:
        parser.error(f"--chunks: every value must be >= 1, got '{args.chunks}'")
    try:
        args.lanes = [int(n) for n in _csv(args.lanes)] or None
    except ValueError:
        parser.error(f"--lanes: not a list of integers: '{args.lanes}'")
    if args.lanes is not None and min(args.lanes) < 1:
        parser.error(f"--lanes: every value must be >= 1, got '{args.lanes}'")
    args.tiles = ["" if t == SHAPE_TILE else t for t in _csv(args.tiles)]
    for tile in args.tiles:
        try:
            if tile:
                parse_tile(tile)
        except ValueError as err:
            parser.error(f"--tiles: {err}")
    if not args.tiles:
        parser.error(f"--tiles: give at least one tile or '{SHAPE_TILE}'")
    args.attn_waits = _csv(args.attn_waits)
    bad_waits = [w for w in args.attn_waits if w not in ("hoist", "walk")]
    if bad_waits or not args.attn_waits:
        parser.error(f"--attn-waits: unknown value '{bad_waits[0] if bad_waits else ''}' (choose from hoist, walk)")
    if args.sms is not None and args.sms < 1:
        parser.error(f"--sms must be >= 1, got {args.sms}")
    if args.spin_limit < 0:
        parser.error(f"--spin-limit must be >= 0, got {args.spin_limit}")
    if args.world is not None and args.world < 1:
        parser.error(f"--world must be >= 1, got {args.world}")
    for option, allowed in (("backends", BACKENDS), ("orders", ORDERS), ("reduce", REDUCTIONS),
                            ("phases", (EXPLORE, CONFIRM))):
        values = _csv(getattr(args, option))
        bad = [v for v in values if v not in allowed]
        if bad or not values:
            parser.error(f"--{option}: unknown value '{bad[0] if bad else ''}' (choose from {', '.join(allowed)})")
        setattr(args, option, values)
    # (warm-up, timed iterations) per round, rounds: 50 timed launches per row in 5 rounds, 10 with --quick
    defaults = (1, 3, 1) if args.cpu else (3, 5, 2) if args.quick else (2, 10, 5)
    args.warmup = defaults[0] if args.warmup is None else args.warmup
    args.iters = defaults[1] if args.iters is None else args.iters
    args.rounds = defaults[2] if args.rounds is None else args.rounds


TP_LAYER = "tp-layer"  # the tensor-parallel decoder layer (not a fused-kernel workload)


def _world_size(args: argparse.Namespace) -> int:
    if args.world is not None and args.list_shapes:
        return args.world
    if args.cpu and "RANK" not in os.environ:  # --cpu outside torchrun: one rank in this process
        return 1
    return int(os.environ.get("WORLD_SIZE", "2" if args.list_shapes else "1"))


def _error(message: str) -> int:
    print(f"overlap-bench: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.cpu and args.dtype != "bf16":
        return _error(f"--dtype {args.dtype} applies to GPU runs: --cpu runs every row in fp32 (the interpreter)")
    if args.workload == TP_LAYER:  # its own rows and table: bench/tp_layer.py
        if args.list_shapes:
            from syncopate.bench.tp_layer import describe

            print(describe(args.cpu, args.quick))
            return 0
        if args.cpu:
            os.environ.setdefault("TRITON_INTERPRET", "1")
        from syncopate.bench import tp_layer

        return tp_layer.main(args.cpu, args.quick, args.warmup, args.iters, args.seed, DTYPES[args.dtype])
    from syncopate.bench.shapes import ShapeError, describe, parse_workloads, select_shapes

    if args.cpu and args.world is not None and not args.list_shapes:
        if "RANK" not in os.environ:  # start the ranks; each runs this command under torchrun's environment
            from syncopate.bench import cpu_ranks

            return cpu_ranks.launch(sys.argv[1:] if argv is None else list(argv), args.world)
        if int(os.environ.get("WORLD_SIZE", "1")) != args.world:
            return _error(f"--world {args.world} differs from torchrun's WORLD_SIZE={os.environ.get('WORLD_SIZE')}")
    world = _world_size(args)
    try:
        workloads = parse_workloads(args.workload)
        shapes = select_shapes(workloads, args.shapes, world, quick=args.quick, cpu=args.cpu)
    except ShapeError as err:
        return _error(str(err))
    if args.list_shapes:
        print(describe(shapes, world))
        return 0
    if not shapes:
        return _error("--shapes/--workload select no shape")

    interpret = os.environ.get("TRITON_INTERPRET")
    if args.cpu:
        if interpret not in (None, "1"):
            return _error("--cpu runs Triton in the interpreter: unset TRITON_INTERPRET or set it to 1")
        os.environ["TRITON_INTERPRET"] = "1"  # before anything imports triton
    elif interpret == "1":
        return _error("GPU runs need the Triton compiler: unset TRITON_INTERPRET (or use --cpu)")

    from syncopate.bench.context import BenchSetupError, BenchWorld

    try:
        import torch

        ctx = BenchWorld.cpu_ranks() if args.cpu else BenchWorld.from_torchrun(args.spin_limit, args.sms,
                                                                               getattr(torch, DTYPES[args.dtype]))
    except BenchSetupError as err:
        return _error(str(err))
    try:
        return run(args, ctx, shapes)
    finally:
        ctx.close()


def run(args: argparse.Namespace, ctx: Any, shapes: list[Any]) -> int:
    """Measure every shape on this rank; rank 0 reports."""
    import torch

    from syncopate.bench import autotune, report
    from syncopate.bench.cases import make_spec
    from syncopate.bench.configs import config_for
    from syncopate.bench.report import CONFIRM
    from syncopate.bench.runner import RunOptions, run_case

    lead = ctx.rank == 0
    options = RunOptions(args.warmup, args.iters, FLUSH_BYTES if args.flush_l2 else 0, args.cuda_graph, args.rounds,
                         args.seed, not args.no_shuffle)
    started = time.time()

    def say(text: str) -> None:
        if lead:
            print(text, file=sys.stderr, flush=True)

    say(_opening(args, ctx, shapes, options))
    try:  # before anything is timed
        headlines = _headlines(args, ctx, shapes) if CONFIRM in args.phases else {}
    except autotune.AutotuneError as err:
        return _error(str(err))
    tables = []
    for index, shape in enumerate(shapes, 1):
        tag = f"[{index}/{len(shapes)}] {shape.workload} {shape.label(ctx.world)}"
        say(f"{tag}: inputs and references")
        spec = make_spec(shape, ctx, config_for(shape, cpu=ctx.cpu), args.seed)
        try:
            spec = _gemm_config(args, ctx, spec, say)
        except autotune.AutotuneError as err:
            return _error(str(err))
        for phase in args.phases:
            say(f"{tag}: {phase}")
            variants = _phase_variants(args, ctx, spec, shape, headlines, phase)

            def progress(variant: Any, row: Any, seconds: float, tag: str = tag) -> None:
                shown = f"{row.ms:.3f} ms" if row.ok else row.status
                say(f"{tag}: {variant.name:<24} {shown}  ({seconds:.1f}s)")

            def round_done(done: int, rounds: int, seconds: float, tag: str = tag) -> None:
                say(f"{tag}: rows checked; timing round {done}/{rounds} done ({seconds:.1f}s)")

            table = run_case(spec, ctx, variants, options, ctx.device_name, progress, round_done, phase)
            tables.append(table)
            if lead:
                print(report.format_table(table) + "\n", flush=True)
            del variants
            if not ctx.cpu:
                torch.cuda.empty_cache()
        del spec
    if lead and _report(args, ctx, tables, started):
        return EXIT_ERROR
    wrong = report.any_wrong(tables)
    if wrong and lead:
        print("overlap-bench: some rows are WRONG (failed the reference check)", file=sys.stderr)
    return EXIT_WRONG if wrong else 0


def _opening(args: argparse.Namespace, ctx: Any, shapes: list[Any], options: Any) -> str:
    """The line that says what this run measures, and how."""
    rounds = f" in each of {options.rounds} round-robin rounds" if options.rounds > 1 else ""
    order = "shuffled (seed " + str(args.seed) + ")" if options.shuffle else "fixed"
    return (f"overlap-bench: W={ctx.world} on {ctx.device_name}, {len(shapes)} shape(s), "
            f"warm-up {options.warmup}, {options.iters} timed iterations{rounds}, "
            f"L2 {'flushed' if args.flush_l2 else 'warm'}, "
            f"{'CUDA graph replays' if args.cuda_graph and not ctx.cpu else 'eager launches'}, "
            f"row order {order}, phases {','.join(args.phases)}")


def _phase_variants(args: argparse.Namespace, ctx: Any, spec: Any, shape: Any, headlines: dict[Any, Any],
                    phase: str) -> list[Any]:
    """The rows one phase of one shape times: explore, every baseline, the
    no-communication row and every fused variant asked for; confirm, every
    baseline and the shape's headline rows."""
    from syncopate.bench.baselines import baseline_variants
    from syncopate.bench.fused import fused_variants
    from syncopate.bench.no_comm import no_comm_variant
    from syncopate.bench.report import EXPLORE
    from syncopate.bench.runner import short_reason
    from syncopate.bench.variants import unavailable

    if phase != EXPLORE:
        return baseline_variants(spec, ctx) + _confirm_rows(spec, ctx, headlines[shape], args)
    variants = baseline_variants(spec, ctx) + [no_comm_variant(spec, ctx)]
    try:
        variants += fused_variants(spec, ctx, args.backends, args.orders, args.chunks,
                                   args.lanes or [ctx.default_lanes], args.attn_waits, args.tiles,
                                   _auto_choice(args, ctx, shape), args.reduce, args.direct)
    except Exception as err:  # a broken extension must not take the baselines down
        variants.append(unavailable("syncopate", f"fused_variants failed: {short_reason(err)}"))
    return variants


def _report(args: argparse.Namespace, ctx: Any, tables: list[Any], started: float) -> bool:
    """Rank 0, after every shape: the summary, the output files and, with
    ``--autotune``, the exploration's best rows recorded as later runs'
    headlines. True where recording them failed."""
    from syncopate.bench import autotune, summary
    from syncopate.bench.report import EXPLORE

    print(summary.format_summary(tables) + "\n", flush=True)
    _write_outputs(args, ctx, tables, started)
    if not args.autotune:
        return False
    try:
        choices = autotune.record([t for t in tables if t.phase == EXPLORE], args.cache)
    except autotune.AutotuneError as err:
        print(f"overlap-bench: error: {err}", file=sys.stderr)
        return True
    for key, choice in choices:
        text = f"{choice.text()} ({choice.ms:.3f} ms)" if choice else "no checked syncopate row: unchanged"
        print(f"autotune {key.text()}: {text}")
    print(f"autotune cache: {args.cache or autotune.default_cache_path()}")
    return False


def _headlines(args: argparse.Namespace, ctx: Any, shapes: list[Any]) -> dict[Any, Any]:
    """Every shape's headline row (bench/headline.py), read from the cache
    before anything is timed. Rank 0 reads, every rank follows."""
    from syncopate.bench import autotune, headline

    chosen: Any = None
    if ctx.rank == 0:
        try:
            chosen = [headline.choose(autotune.TuneKey(s.workload, s.key, ctx.world, ctx.device_name, ctx.dtype_name),
                                      (args.lanes or [ctx.default_lanes])[0], args.cache) for s in shapes]
        except autotune.AutotuneError as err:  # every rank raises it below, so none waits for the others
            chosen = err
    chosen = ctx.gather_objects(chosen)[0]
    if isinstance(chosen, Exception):
        raise chosen
    return dict(zip(shapes, chosen))


def _confirm_rows(spec: Any, ctx: Any, chosen: Any, args: argparse.Namespace) -> list[Any]:
    """The syncopate rows of a confirmation: the headline (and its /direct twin for ag-gemm)."""
    from syncopate.bench import headline
    from syncopate.bench.fused import variants_for
    from syncopate.bench.runner import short_reason
    from syncopate.bench.variants import unavailable

    try:
        return headline.mark(variants_for(spec, ctx, headline.rows_of(chosen, spec.workload), args.attn_waits),
                             chosen)
    except Exception as err:  # a broken extension must not take the baselines down
        return [unavailable("syncopate", f"fused_variants failed: {short_reason(err)}")]


def _auto_choice(args: argparse.Namespace, ctx: Any, shape: Any) -> Any:
    """The autotune cache's best row for this shape at this W on this device
    (None: not measured, or no ``auto`` row asked for). Rank 0 reads the
    cache, every rank follows."""
    from syncopate.bench import autotune

    choice: Any = None
    if "auto" in args.backends and ctx.rank == 0:
        try:
            choice = autotune.best_choice((shape.workload, shape.key, ctx.world, ctx.device_name, ctx.dtype_name),
                                          args.cache)
        except autotune.AutotuneError as err:  # every rank raises it below, so none waits for the others
            choice = err
    choice = ctx.gather_objects(choice)[0]
    if isinstance(choice, Exception):
        raise choice
    return choice


def _gemm_config(args: argparse.Namespace, ctx: Any, spec: Any, say: Any) -> Any:
    """``spec`` with its Triton GEMM config: tuned now (--tune-gemm), else
    the cached tuned one, else the default. Rank 0 decides, every rank follows."""
    import dataclasses

    from syncopate.bench import gemm_tune

    if spec.workload not in gemm_tune.TUNED_WORKLOADS:
        return spec
    if args.tune_gemm:
        candidates = gemm_tune.candidates_for(spec.workload, ctx.cpu)
        say(f"tuning the Triton GEMM over {len(candidates)} configs")
        trials, cublas, flops = gemm_tune.tune(spec, ctx, candidates, args.warmup, args.iters, args.rounds)
        winner = gemm_tune.best(trials)
        if ctx.rank == 0:
            print(gemm_tune.format_trials(spec.shape, ctx.world, trials, cublas, flops) + "\n", flush=True)
            if winner is not None:
                gemm_tune.record(spec.shape, ctx.world, ctx.device_name, winner, cublas, args.cache, ctx.dtype_name)
        config = winner.config if winner is not None else spec.config
    else:
        config = gemm_tune.tuned_config(spec.shape, ctx.world, ctx.device_name, args.cache, ctx.dtype_name) \
            or spec.config
    config = ctx.gather_objects(config)[0]
    return dataclasses.replace(spec, config=config)


def _write_outputs(args: argparse.Namespace, ctx: Any, tables: list[Any], started: float) -> None:
    from syncopate.bench import report, summary
    from syncopate.bench.plot import write_png

    os.makedirs(args.out, exist_ok=True)
    csv_path, json_path, png_path = (os.path.join(args.out, f"results.{ext}") for ext in ("csv", "json", "png"))
    with open(csv_path, "w") as f:
        f.write(report.csv_text(tables))
    with open(json_path, "w") as f:
        f.write(report.json_text(tables, _meta(args, ctx, started), summary.summary_record(tables)))
    skipped = write_png(tables, png_path)
    print(f"wrote {csv_path}, {json_path}" + (f", {png_path}" if skipped is None else ""))
    if skipped is not None:
        print(f"overlap-bench: {skipped}", file=sys.stderr)


def _meta(args: argparse.Namespace, ctx: Any, started: float) -> dict[str, Any]:
    import torch
    import triton

    return {
        "argv": sys.argv[1:], "world": ctx.world, "device": ctx.device_name, "cpu": ctx.cpu,
        "torch": torch.__version__, "triton": triton.__version__, "cuda": torch.version.cuda,
        "warmup": args.warmup, "iters": args.iters, "rounds": args.rounds, "l2": "flushed" if args.flush_l2 else "warm",
        "seed": args.seed, "shuffle": not args.no_shuffle, "phases": args.phases, "direct": args.direct,
        "backends": args.backends, "orders": args.orders, "chunks": args.chunks, "reduce": args.reduce,
        "lanes": args.lanes, "tiles": args.tiles, "attn_waits": args.attn_waits,
        "timing": "CUDA events per iteration, median, max over ranks" if not ctx.cpu else "perf_counter, median",
        "launches": "CUDA graph replays" if args.cuda_graph and not ctx.cpu else "eager",
        "spin_limit": args.spin_limit, "sms": ctx.gpu.comm_programs if ctx.gpu is not None else None,
        "nccl_high_priority": ctx.gpu.comm_group is not None if ctx.gpu is not None else None,
        "started": started, "seconds": time.time() - started,
    }


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
