"""Check, then time, every variant of one case; all ranks agree on each outcome.

Per variant:

1. ``setup()``; the ranks exchange whether it worked (a failure anywhere
   makes the row "n/a: <reason>" everywhere, so no rank waits in a
   collective the others skip);
2. barrier, ``poison()`` (outputs, and for the fused reduce-scatter rows the
   staging buffers, to NaN), ``produce(v)`` (the next input version, for
   rows whose inputs change between checked launches), barrier, one
   ``run()``, compare ``result()`` with the fp32 reference of version ``v``;
   the ranks exchange the outcome: a failed check anywhere makes the row
   "WRONG" (not timed), an exception "n/a: <reason>";
3. with ``cuda_graph``: capture one ``run()`` in a CUDA graph and check a
   replay like step 2, with the next input version (a capture that fails
   anywhere falls back to eager launches, noted in the row);
4. ``rounds`` times: barrier, then :func:`time_run` (``warmup`` launches,
   ``iters`` timed ones); the row's time is the maximum over ranks of each
   rank's median over every timed iteration of every round;
5. the result left by the last timed launch is compared again with the
   reference of the last input version (repeated launches must stay
   correct: stale flags, a reduction applied twice); a failure makes the
   row WRONG and drops its time.

``teardown()`` always runs at the end.

Interleaved rounds (``rounds`` > 1, :func:`run_case`): every variant of the
case is set up and checked first (steps 1-3), then the rounds of step 4 go
round-robin over the variants, then steps 5 and teardown. GPU clocks and
the neighbour's load drift within a run; timed one after another, a row's
place in the table would bias its verdict against the rows it is compared
with. Round-robin spreads each row's iterations over the whole span of the
case, so drift hits every row alike, and the order of the rows within each
round is a seeded shuffle (:func:`round_order`; ``shuffle=False`` keeps the
table order), so no row is always timed right after the same neighbour.
Each round's median (max over ranks) is kept in ``Row.round_ms``; their
spread is reported. The cost: every row's buffers and CUDA graph live at
once, so the builders give each row its own state
(``variants.one_state_per_row``). With one round the rows are measured
whole, one after another, in the same seeded order.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from syncopate.bench.check import check_result
from syncopate.bench.context import BenchWorld
from syncopate.bench.problem import OUT, BenchSpec, reference_key
from syncopate.bench.report import EXPLORE, NA, OK, WRONG, Row, Table, add_bounds
from syncopate.bench.timing import time_run
from syncopate.bench.variants import Variant

Progress = Callable[[Variant, Row, float], None]
RoundProgress = Callable[[int, int, float], None]  # (rounds done, rounds, seconds since the case started)


@dataclass(frozen=True)
class RunOptions:
    warmup: int = 10  # launches before each round's timed ones
    iters: int = 50  # timed launches per round
    flush_bytes: int = 0  # > 0: zero this many bytes before each timed iteration (cold L2)
    cuda_graph: bool = False  # time replays of a CUDA graph of one run() (checked first), not eager launches
    rounds: int = 1  # > 1: time the rows of a case round-robin, this many rounds (see the module doc)
    seed: int = 0  # seed of the row order within each round
    shuffle: bool = True  # False: every round times the rows in table order

    def __post_init__(self) -> None:
        if self.rounds < 1:
            raise ValueError(f"rounds must be >= 1, got {self.rounds}")


def round_order(count: int, seed: int, round_index: int, shuffle: bool = True) -> list[int]:
    """The order in which round ``round_index`` times ``count`` rows: a
    permutation that depends only on its arguments, so every rank (and a
    rerun with the same seed) times the rows in the same order."""
    order = list(range(count))
    if shuffle:
        random.Random(seed * 1_000_003 + round_index).shuffle(order)
    return order


def short_reason(err: BaseException, limit: int = 160) -> str:
    """One line naming the error, for an "n/a: ..." status."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else ""
    name = type(err).__name__
    reason = text if name in ("GpuWorldError", "RuntimeError") and text else f"{name}: {text}" if text else name
    return reason if len(reason) <= limit else reason[: limit - 3] + "..."


def _attempt(fn: Callable[[], None]) -> str | None:
    try:
        fn()
    except Exception as err:  # reported in the row, never fatal to the bench
        return short_reason(err)
    return None


def merge_outcomes(outcomes: Sequence[tuple[str, float, str]]) -> tuple[str, float]:
    """Combine every rank's (status, error, reason) into the row's (status text, error)."""
    errors = [e for _, e, _ in outcomes]
    error = math.nan if any(math.isnan(e) for e in errors) else max(errors, default=0.0)
    failed = [(r, reason) for r, (status, _, reason) in enumerate(outcomes) if status == NA]
    if failed:
        rank, reason = failed[0]
        where = f"rank {rank}: " if len(failed) < len(outcomes) else ""
        return f"{NA}: {where}{reason}", error
    if any(status == WRONG for status, _, _ in outcomes):
        return WRONG, error
    return OK, error


def _compare(variant: Variant, spec: BenchSpec, version: int = 0) -> tuple[str, float, str]:
    """This rank's (status, error, reason) for the variant's current result,
    made from input version ``version``."""
    try:
        if spec.problem is None:
            raise ValueError(f"no reference for {spec.workload}")
        rounding = getattr(spec.problem, "rounding", None) if variant.expect == OUT else None
        result = check_result(variant.result(), spec.problem.references[reference_key(variant.expect, version)],
                              rounding=rounding)
    except Exception as exc:
        return NA, math.nan, short_reason(exc)
    return (OK, result.error, "") if result.ok else (WRONG, result.error, result.reason)


def _check_once(variant: Variant, spec: BenchSpec, ctx: BenchWorld,
                run: Callable[[], None] | None = None, version: int = 0) -> tuple[str, float, str]:
    """Poison, produce input version ``version``, run once (``run`` or the
    variant's), compare: this rank's outcome."""
    ctx.barrier()
    err = _attempt(variant.poison) or _attempt(lambda: variant.produce(version))
    ctx.barrier()
    launch = run or variant.run

    def once() -> None:
        launch()
        ctx.sync()

    err = err or _attempt(once)
    if err:
        return NA, math.nan, err
    return _compare(variant, spec, version)


def _capture(variant: Variant, ctx: BenchWorld) -> tuple[Callable[[], None] | None, str | None]:
    """A CUDA graph of one ``run()`` (warmed up on a side stream first): (replay, error)."""
    import torch

    holder: dict[str, Any] = {}

    def capture() -> None:
        stream = torch.cuda.current_stream(ctx.device)
        side = torch.cuda.Stream(ctx.device)
        side.wait_stream(stream)
        with torch.cuda.stream(side):
            variant.run()
        stream.wait_stream(side)
        ctx.sync()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            variant.run()
        ctx.sync()
        holder["graph"] = graph

    err = _attempt(capture)
    return (holder["graph"].replay if err is None else None), err


def _agree(ctx: BenchWorld, outcome: tuple[str, float, str]) -> tuple[str, float]:
    return merge_outcomes(ctx.gather_objects(outcome))


@dataclass
class _Case:
    """One variant between its check and its verdict: what to time (``run``;
    None once the row is settled: n/a, WRONG or a failed round) and this
    rank's timed iterations so far."""

    variant: Variant
    row: Row
    run: Callable[[], None] | None = None
    times: list[float] = field(default_factory=list)
    host: list[float] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    torn_down: bool = False
    checks: int = 0  # checked launches so far
    version: int = 0  # the input version of the latest checked launch (what the timed launches read)

    def check(self, spec: BenchSpec, ctx: BenchWorld, run: Callable[[], None] | None = None) -> tuple[str, float]:
        """One checked launch with the next input version; the ranks' agreed (status, error)."""
        self.version = self.checks % max(1, self.variant.versions)
        self.checks += 1
        return _agree(ctx, _check_once(self.variant, spec, ctx, run, self.version))

    def teardown(self) -> None:
        if not self.torn_down:
            self.torn_down = True
            self.variant.teardown()


def _prepare(variant: Variant, spec: BenchSpec, ctx: BenchWorld, options: RunOptions) -> _Case:
    """Steps 1-3 of the module doc: set up, check, capture and check again."""
    meta = variant.meta
    case = _Case(variant, Row(variant.name, variant.group, OK, compute=variant.compute, backend=meta.get("backend"),
                              order=meta.get("order"), chunks=meta.get("chunks"), lanes=meta.get("lanes"),
                              tile=meta.get("tile"), reduce=meta.get("reduce"), headline=meta.get("headline", ""),
                              note=variant.note))
    row = case.row
    if variant.na is not None:
        row.status = f"{NA}: {variant.na}"
        return case
    setup_err = _attempt(variant.setup)
    status, _ = _agree(ctx, (NA if setup_err else OK, 0.0, setup_err or ""))
    if status != OK:
        row.status = status
        return case
    status, row.error = case.check(spec, ctx)
    if status != OK:
        row.status = status
        return case
    run = variant.run
    if options.cuda_graph and not ctx.cpu:
        replay, capture_err = _capture(variant, ctx)
        failed = [e for e in ctx.gather_objects(capture_err) if e]
        if failed:
            row.timing, row.note = "events", _join(row.note, f"eager: CUDA graph capture failed: {failed[0]}")
        else:
            assert replay is not None
            status, row.error = case.check(spec, ctx, replay)
            if status != OK:
                row.status, row.note = status, _join(row.note, "under CUDA graph replay")
                return case
            run, row.timing = replay, "graph"
    case.run = run
    return case


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def _time_round(case: _Case, ctx: BenchWorld, options: RunOptions) -> None:
    """Step 4, one round: every rank times ``case.run``; a failure on any rank settles the row as n/a."""
    assert case.run is not None
    ctx.barrier()
    timing = None

    def timed() -> None:
        nonlocal timing
        assert case.run is not None
        timing = time_run(case.run, ctx.device, options.warmup, options.iters, options.flush_bytes)

    time_err = _attempt(timed)
    median = timing.median_ms if timing else math.nan
    per_rank = ctx.gather_floats([median])
    if time_err or any(math.isnan(v[0]) for v in per_rank):
        failed_at = ctx.gather_objects(time_err)
        rank, reason = next(((r, e) for r, e in enumerate(failed_at) if e), (0, "no time measured"))
        case.row.status = f"{NA}: rank {rank}: timing failed: {reason}"
        case.run = None
        return
    assert timing is not None
    case.times += timing.times
    case.host += timing.host_times
    case.row.round_ms.append(max(v[0] for v in per_rank))


def _finish(case: _Case, spec: BenchSpec, ctx: BenchWorld) -> Row:
    """Step 5: check the result the timed launches left, then the row's times over every round."""
    row = case.row
    if case.run is None:
        return row
    ctx.sync()
    # repeated launches left a correct result (of the inputs the timed launches read)?
    status, error = _agree(ctx, _compare(case.variant, spec, case.version))
    if status != OK:
        row.status, row.error, row.note = status, error, _join(row.note, "after the timed launches")
        row.round_ms = []
        return row
    per_rank = ctx.gather_floats([statistics.median(case.times), min(case.times), statistics.median(case.host)])
    row.ms_ranks = [v[0] for v in per_rank]
    row.ms = max(row.ms_ranks)
    row.min_ms = max(v[1] for v in per_rank)
    row.host_ms = max(v[2] for v in per_rank)
    return row


def measure(variant: Variant, spec: BenchSpec, ctx: BenchWorld, options: RunOptions) -> Row:
    """One row on its own: check, then every round of timing, then check again (see the module doc)."""
    try:
        case = _prepare(variant, spec, ctx, options)
        for _ in range(options.rounds):
            if case.run is not None:
                _time_round(case, ctx, options)
        return _finish(case, spec, ctx)
    finally:
        variant.teardown()


def run_case(spec: BenchSpec, ctx: BenchWorld, variants: Sequence[Variant], options: RunOptions,
             device_name: str, progress: Progress | None = None,
             round_progress: RoundProgress | None = None, phase: str = EXPLORE) -> Table:
    """Measure ``variants`` of one case into a :class:`Table` (bounds added):
    one after another, or with ``options.rounds`` > 1 interleaved (see the
    module doc), calling ``round_progress`` after each round."""
    shape = spec.shape
    table = Table(shape.workload, shape.name, spec.label, shape.M, shape.K, shape.N, spec.world,
                  str(spec.dtype).replace("torch.", ""), device_name, note=shape.note,
                  config=spec.config.text() if spec.problem is not None else "", phase=phase)
    if options.rounds == 1:
        rows: dict[int, Row] = {}
        for i in round_order(len(variants), options.seed, 0, options.shuffle):
            start = time.perf_counter()
            rows[i] = measure(variants[i], spec, ctx, options)
            if progress is not None:
                progress(variants[i], rows[i], time.perf_counter() - start)
        table.rows += [rows[i] for i in range(len(variants))]
    else:
        table.rows += _interleaved(spec, ctx, variants, options, progress, round_progress)
    add_bounds(table)
    return table


def _interleaved(spec: BenchSpec, ctx: BenchWorld, variants: Sequence[Variant], options: RunOptions,
                 progress: Progress | None, round_progress: RoundProgress | None) -> list[Row]:
    cases: list[_Case] = []
    started = time.perf_counter()
    try:
        for variant in variants:
            cases.append(_prepare(variant, spec, ctx, options))
            if cases[-1].run is None:  # settled (n/a, WRONG): free its buffers now
                cases[-1].teardown()
        for done in range(1, options.rounds + 1):
            for i in round_order(len(cases), options.seed, done, options.shuffle):
                if cases[i].run is not None:
                    _time_round(cases[i], ctx, options)
            if round_progress is not None:
                round_progress(done, options.rounds, time.perf_counter() - started)
        rows = []
        for case in cases:
            rows.append(_finish(case, spec, ctx))
            if progress is not None:
                progress(case.variant, rows[-1], time.perf_counter() - case.started)
        return rows
    finally:
        for case in cases:
            case.teardown()
