"""overlap-bench's reference check, timing and runner (one gloo rank on the CPU)."""

import math

import pytest
import torch

from syncopate.bench.baselines import CE_REDUCE, NATIVE_RS, NO_FUSED_AR, baseline_variants
from syncopate.bench.check import check_result, poison
from syncopate.bench.configs import CPU_DEFAULT
from syncopate.bench.context import BenchWorld
from syncopate.bench.cases import make_spec
from syncopate.bench.problem import GATHERED, OUT, PARTIAL, make_problem, reference_key
from syncopate.bench.report import OK, WRONG
from syncopate.bench.runner import RunOptions, _prepare, measure, merge_outcomes, round_order, run_case
from syncopate.bench.shapes import AG_GEMM, GEMM_AR, GEMM_RS, SHAPES
from syncopate.bench.timing import time_run
from syncopate.bench.variants import (
    ASYNC_TP,
    ASYNC_TP_NATIVE,
    BOUND_TRITON,
    CE_ALONE,
    COMM_ALONE,
    FLOOR,
    SEQ_CE,
    SEQ_CUBLAS,
    SYMM_ONE_SHOT,
    SYMM_TWO_SHOT,
    Variant,
)


def bf16_gemm(m, k, n, seed):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(m, k, generator=g).to(torch.bfloat16)
    b = torch.randn(k, n, generator=g).to(torch.bfloat16)
    return a, b, a.float() @ b.float()


def test_check_accepts_bf16_rounding_of_a_correct_gemm():
    a, b, ref = bf16_gemm(64, 1024, 48, 0)
    result = check_result((a.float() @ b.float()).to(torch.bfloat16), ref)
    assert result.ok, result.reason
    assert 0 < result.error < 2e-2


def test_check_accepts_a_bf16_reduction_of_partials():
    parts = [bf16_gemm(32, 512, 40, s) for s in range(4)]
    ref = sum(p[2] for p in parts)
    out = torch.zeros(32, 40, dtype=torch.bfloat16)
    for _, _, partial in parts:  # what a bf16 reduce-scatter does: round, add in bf16
        out += partial.to(torch.bfloat16)
    assert check_result(out, ref).ok


def test_check_rejects_stale_rows_missing_partials_and_scaling():
    a, b, ref = bf16_gemm(64, 1024, 48, 0)
    stale = ref.clone()
    stale[16:24] = bf16_gemm(8, 1024, 48, 7)[2]  # one chunk of rows from other data
    result = check_result(stale.to(torch.bfloat16), ref)
    assert not result.ok and "elements off" in result.reason and result.error > 0.5
    parts = [bf16_gemm(32, 512, 40, s)[2] for s in range(2)]
    assert not check_result(parts[0], parts[0] + parts[1]).ok  # a reduction that missed a rank
    assert not check_result(ref * 1.05, ref).ok  # systematically 5% off


def test_check_rejects_poison_shapes_and_non_tensors():
    _, _, ref = bf16_gemm(16, 64, 16, 1)
    out = ref.clone()
    out[3, 5] = math.nan
    result = check_result(out, ref)
    assert not result.ok and math.isnan(result.error) and "NaN" in result.reason
    assert not check_result(ref[:8], ref).ok
    assert "shape (8, 32) differs" in check_result(ref.reshape(8, 32), ref).reason
    assert not check_result(None, ref).ok
    poisoned = torch.ones(4, 4)
    poison(poisoned, None)
    assert torch.isnan(poisoned).all()


def test_time_run_counts_iterations_and_validates():
    calls = []
    timing = time_run(lambda: calls.append(1), torch.device("cpu"), warmup=2, iters=5)
    assert len(calls) == 7 and timing.iters == 5
    assert 0 <= timing.min_ms <= timing.median_ms
    with pytest.raises(ValueError, match="iters must be >= 1"):
        time_run(lambda: None, torch.device("cpu"), iters=0)


def test_merge_outcomes_across_ranks():
    assert merge_outcomes([(OK, 1e-3, ""), (OK, 2e-3, "")]) == (OK, 2e-3)
    status, error = merge_outcomes([(OK, 1e-3, ""), (WRONG, 0.7, "x")])
    assert status == WRONG and error == 0.7
    status, _ = merge_outcomes([(OK, 0.0, ""), ("n/a", math.nan, "GpuWorldError text")])
    assert status == "n/a: rank 1: GpuWorldError text"
    assert merge_outcomes([("n/a", math.nan, "same")] * 2)[0] == "n/a: same"


@pytest.fixture(scope="module")
def ctx():
    world = BenchWorld.cpu_single()
    yield world
    world.close()


def shape(workload):
    return next(s for s in SHAPES if s.workload == workload and s.name == "cpu-tiny")


def test_problem_references_are_consistent():
    s = shape(GEMM_RS)
    p0, p1 = (make_problem(s, 2, r, torch.device("cpu"), torch.float32, 3) for r in range(2))
    full = p0.a.float() @ p0.b.float() + p1.a.float() @ p1.b.float()
    assert torch.allclose(p0.references[OUT], full[:32], atol=1e-4)
    assert torch.allclose(p1.references[OUT], full[32:], atol=1e-4)
    assert torch.equal(p0.references[PARTIAL], p0.a.float() @ p0.b.float())
    assert p0.a.abs().min() > 0 or p0.a.abs().sum() > 0  # random, not zeros
    ag = make_problem(shape(AG_GEMM), 2, 1, torch.device("cpu"), torch.float32, 3)
    assert torch.equal(ag.references[GATHERED][32:], ag.a)
    assert torch.allclose(ag.references[OUT], ag.a_full @ ag.b)


def test_ar_references_hold_the_whole_sum_on_every_rank():
    s = shape(GEMM_AR)
    p0, p1 = (make_problem(s, 2, r, torch.device("cpu"), torch.float32, 3) for r in range(2))
    full = p0.a.float() @ p0.b.float() + p1.a.float() @ p1.b.float()
    for p in (p0, p1):
        assert torch.allclose(p.references[OUT], full, atol=1e-4) and p.rounding.shape == full.shape
    assert torch.equal(p1.references[PARTIAL], p1.a.float() @ p1.b.float())
    rs = make_problem(shape(GEMM_RS), 2, 1, torch.device("cpu"), torch.float32, 3)
    assert torch.equal(rs.a, p1.a) and torch.equal(rs.references[OUT], p1.references[OUT][32:])


def test_the_ar_check_catches_a_reduce_scatter_a_lost_partial_and_a_doubled_one():
    """In bf16, as the GPU rows run: a rank left with only its own rows
    summed, a sum that missed a rank or counted one twice is WRONG; the
    sum rounded in bf16 passes."""
    s = shape(GEMM_AR)
    ps = [make_problem(s, 2, r, torch.device("cpu"), torch.bfloat16, 3) for r in range(2)]
    ref, rounding = ps[0].references[OUT], ps[0].rounding
    parts = [p.references[PARTIAL] for p in ps]
    assert check_result(parts[0].bfloat16() + parts[1].bfloat16(), ref, rounding=rounding).ok
    scattered = (parts[0] + parts[1]).bfloat16()
    scattered[32:] = parts[0][32:].bfloat16()  # rank 0 after a reduce-scatter: the peer's rows are its partial
    for wrong in (scattered, parts[0].bfloat16(), (2 * parts[0] + parts[1]).bfloat16()):
        assert not check_result(wrong, ref, rounding=rounding).ok


def _spec(ctx, workload=AG_GEMM):
    return make_spec(shape(workload), ctx, CPU_DEFAULT, seed=0)


def test_runner_times_a_correct_variant(ctx):
    spec = _spec(ctx)
    calls = []
    out = torch.empty(spec.dims.c)

    def run():
        calls.append(1)
        torch.matmul(spec.problem.a_full, spec.problem.b, out=out)

    row = measure(Variant("good", run, lambda: out, poison=lambda: poison(out)), spec, ctx, RunOptions(1, 4))
    assert row.status == OK and row.ms is not None and row.ms_ranks == [row.ms]
    assert len(calls) == 1 + 1 + 4  # check run, warm-up, timed
    assert row.error < 1e-5


def test_runner_reports_wrong_and_does_not_time_it(ctx):
    spec = _spec(ctx)
    calls = []
    out = torch.empty(spec.dims.c)

    def run():  # forgets the last rows: they keep the poison
        calls.append(1)
        out[:-4] = spec.problem.a_full[:-4] @ spec.problem.b

    row = measure(Variant("bad", run, lambda: out, poison=lambda: poison(out)), spec, ctx, RunOptions(1, 4))
    assert row.status == WRONG and row.ms is None and len(calls) == 1
    assert math.isnan(row.error)


def test_runner_reports_errors_and_unavailable_rows_as_na(ctx):
    spec = _spec(ctx)
    torn_down = []

    def broken_setup():
        raise RuntimeError("reduce-scatter is not supported on GPUs yet")

    row = measure(Variant("x", setup=broken_setup, teardown=lambda: torn_down.append(1)), spec, ctx, RunOptions(0, 1))
    assert row.status == "n/a: reduce-scatter is not supported on GPUs yet" and torn_down == [1]

    def broken_run():
        raise KeyError("syn_flags")

    assert measure(Variant("y", run=broken_run), spec, ctx, RunOptions(0, 1)).status == "n/a: KeyError: 'syn_flags'"
    never = Variant("z", run=lambda: pytest.fail("an n/a row must not run"), na="needs CUDA")
    assert measure(never, spec, ctx, RunOptions(0, 1)).status == "n/a: needs CUDA"


@pytest.mark.parametrize("workload", [AG_GEMM, GEMM_RS, GEMM_AR])
def test_baselines_pass_their_check_on_one_cpu_rank(ctx, workload):
    spec = _spec(ctx, workload)
    table = run_case(spec, ctx, baseline_variants(spec, ctx), RunOptions(0, 1), "cpu")
    status = {r.variant: r.status for r in table.rows}
    assert {name: status.pop(name) for name in not_on_one_cpu_rank(workload)} == not_on_one_cpu_rank(workload)
    assert set(status.values()) == {OK}, status
    assert table.ms(BOUND_TRITON) is not None and table.ms(SEQ_CUBLAS) > 0
    if workload == AG_GEMM:  # the copy-engine rows run (and are checked) on one CPU rank too
        assert table.ms(CE_ALONE) > 0 and table.ms(SEQ_CE) > 0
        assert table.ms(FLOOR) == min(table.ms(CE_ALONE), table.ms(COMM_ALONE))


def not_on_one_cpu_rank(workload):
    """The baseline rows that are n/a on one CPU rank, with their status."""
    if workload == AG_GEMM:
        return {ASYNC_TP: "n/a: needs CUDA", ASYNC_TP_NATIVE: "n/a: needs CUDA"}
    copy_engine = {SEQ_CE: f"n/a: {CE_REDUCE}", CE_ALONE: f"n/a: {CE_REDUCE}"}
    if workload == GEMM_AR:
        return {ASYNC_TP: f"n/a: {NO_FUSED_AR}", ASYNC_TP_NATIVE: f"n/a: {NO_FUSED_AR}",
                SYMM_ONE_SHOT: "n/a: needs CUDA", SYMM_TWO_SHOT: "n/a: needs CUDA", **copy_engine}
    return {ASYNC_TP: "n/a: needs CUDA", ASYNC_TP_NATIVE: f"n/a: {NATIVE_RS}", **copy_engine}


def test_runner_rechecks_after_the_timed_launches(ctx):
    spec = _spec(ctx)
    out = torch.empty(spec.dims.c)
    launches = []

    def run():  # right once, then a reduction applied again on every later launch
        if not launches:
            torch.matmul(spec.problem.a_full, spec.problem.b, out=out)
        else:
            out.add_(spec.problem.a_full @ spec.problem.b)
        launches.append(1)

    row = measure(Variant("twice", run, lambda: out, poison=lambda: poison(out)), spec, ctx, RunOptions(0, 2))
    assert row.status == WRONG and row.note == "after the timed launches" and row.ms is None
    assert len(launches) == 3


def _logged(name, spec, log, fail_at=None, wrong_after=None):
    """A correct AG GEMM row that logs its launches; ``fail_at``: the launch
    that raises; ``wrong_after``: launches after it leave a wrong result."""
    out = torch.empty(spec.dims.c)
    state = {"launches": 0, "torn_down": 0}

    def run():
        state["launches"] += 1
        log.append(name)
        if state["launches"] == fail_at:
            raise RuntimeError("lost the GPU")
        torch.matmul(spec.problem.a_full, spec.problem.b, out=out)
        if wrong_after is not None and state["launches"] > wrong_after:
            out[0, 0] += 1e3

    def teardown():
        state["torn_down"] += 1

    return Variant(name, run, lambda: out, poison=lambda: poison(out), teardown=teardown), state


def test_rounds_time_the_rows_round_robin_after_checking_them_all(ctx):
    spec = _spec(ctx)
    log = []
    (a, sa), (b, sb) = _logged("a", spec, log), _logged("b", spec, log)
    rounds = []
    table = run_case(spec, ctx, [a, b], RunOptions(1, 2, rounds=3, shuffle=False), "cpu",
                     round_progress=lambda done, total, seconds: rounds.append((done, total, len(log))))
    # checks first, then per round: each row's warm-up launch and 2 timed launches
    assert log == ["a", "b"] + (["a"] * 3 + ["b"] * 3) * 3
    assert rounds == [(1, 3, 8), (2, 3, 14), (3, 3, 20)]  # reported after each round
    for row in table.rows[:2]:
        assert row.status == OK and len(row.round_ms) == 3 and row.ms is not None
        assert row.min_ms <= min(row.round_ms) <= row.ms <= max(row.round_ms)  # the median of all 6 launches
    assert sa["torn_down"] == sb["torn_down"] == 1


def test_one_row_alone_times_all_its_rounds(ctx):
    spec = _spec(ctx)
    log = []
    a, _ = _logged("a", spec, log)
    row = measure(a, spec, ctx, RunOptions(0, 2, rounds=2))
    assert row.status == OK and len(log) == 1 + 2 * 2 and len(row.round_ms) == 2


def test_a_round_that_fails_settles_only_its_row(ctx):
    spec = _spec(ctx)
    log = []
    (a, sa), (b, _) = _logged("a", spec, log, fail_at=4), _logged("b", spec, log)
    table = run_case(spec, ctx, [a, b], RunOptions(0, 2, rounds=3), "cpu")
    rows = {r.variant: r for r in table.rows}
    assert rows["a"].status == "n/a: rank 0: timing failed: lost the GPU" and rows["a"].ms is None
    assert sa["launches"] == 4  # check, round 1 (2), the failing launch of round 2; no round 3
    assert rows["b"].status == OK and len(rows["b"].round_ms) == 3 and sa["torn_down"] == 1


def test_rounds_recheck_what_the_timed_launches_left(ctx):
    spec = _spec(ctx)
    log = []
    (a, _), (b, _) = _logged("a", spec, log, wrong_after=2), _logged("b", spec, log)
    rows = {r.variant: r for r in run_case(spec, ctx, [a, b], RunOptions(0, 1, rounds=2), "cpu").rows}
    assert rows["a"].status == WRONG and rows["a"].note == "after the timed launches" and rows["a"].ms is None
    assert rows["a"].round_ms == [] and rows["b"].status == OK


def test_settled_rows_free_their_buffers_before_the_rounds(ctx):
    spec = _spec(ctx)
    log = []
    bad_out = torch.empty(spec.dims.c)
    torn = []
    bad = Variant("bad", lambda: log.append("bad"), lambda: bad_out, poison=lambda: poison(bad_out),
                  teardown=lambda: torn.append(len(log)))
    good, _ = _logged("good", spec, log)
    table = run_case(spec, ctx, [bad, good], RunOptions(0, 1, rounds=2), "cpu")
    assert [r.status for r in table.rows[:2]] == [WRONG, OK]
    assert torn == [1]  # right after its failed check, before "good" was even checked


def test_rounds_must_be_positive():
    with pytest.raises(ValueError, match="rounds must be >= 1, got 0"):
        RunOptions(rounds=0)


@pytest.mark.parametrize("workload", [AG_GEMM, GEMM_RS, GEMM_AR])
def test_baseline_rows_own_their_buffers(ctx, workload):
    """Timed round-robin, a row's buffers must outlive the next row's setup."""
    spec = _spec(ctx, workload)
    rows = [v for v in baseline_variants(spec, ctx) if v.na is None]
    for v in rows:
        v.setup()
    outputs = [v.result() for v in rows]
    ptrs = [t.data_ptr() for t in outputs if t is not None]
    assert len(ptrs) == len(set(ptrs)) >= 3
    table = run_case(spec, ctx, baseline_variants(spec, ctx), RunOptions(0, 1, rounds=2), "cpu")
    status = {r.variant: r.status for r in table.rows}
    assert {name: status.pop(name) for name in not_on_one_cpu_rank(workload)} == not_on_one_cpu_rank(workload)
    assert set(status.values()) == {OK}, status


def test_round_order_is_a_seeded_permutation_that_every_rank_repeats():
    orders = [round_order(8, 7, r) for r in range(1, 6)]
    assert all(sorted(o) == list(range(8)) for o in orders)
    assert orders == [round_order(8, 7, r) for r in range(1, 6)]  # same seed, same rounds: same orders
    assert len({tuple(o) for o in orders}) > 1  # the order changes from round to round
    assert [round_order(8, 8, r) for r in range(1, 6)] != orders  # and with the seed
    assert round_order(8, 7, 3, shuffle=False) == list(range(8))


def test_rounds_time_the_rows_in_the_seeded_order_and_report_their_spread(ctx):
    spec = _spec(ctx)
    log = []
    rows = [_logged(name, spec, log)[0] for name in "abcd"]
    table = run_case(spec, ctx, rows, RunOptions(0, 1, rounds=4, seed=3), "cpu")
    timed = log[4:]  # after the four checks: one launch per row per round
    assert timed == ["abcd"[i] for r in range(1, 5) for i in round_order(4, 3, r)]
    assert [r.variant for r in table.rows[:4]] == list("abcd")  # the table keeps its order
    assert all(len(r.round_ms) == 4 and r.spread is not None and r.spread >= 0 for r in table.rows[:4])
    log.clear()
    run_case(spec, ctx, [_logged(name, spec, log)[0] for name in "abcd"], RunOptions(0, 1, seed=3), "cpu")
    assert log[::2] == ["abcd"[i] for i in round_order(4, 3, 0)]  # one round: whole rows in the seeded order


def test_checked_launches_cycle_through_the_input_versions(ctx):
    """Each checked launch reads the next input version and is compared with
    that version's reference, so a launch that re-reads the previous inputs fails."""
    spec = _spec(ctx)
    p = spec.problem
    assert p.versions == 2 and not torch.equal(p.a_versions[0], p.a_versions[1])
    a = torch.empty_like(p.a_full)
    out = torch.empty(spec.dims.c)
    produced = []

    def produce(version):
        produced.append(version)
        a.copy_(p.a_full_versions[version])

    def run():
        torch.matmul(a, p.b, out=out)

    ok = Variant("fresh", run, lambda: out, poison=lambda: poison(out), versions=p.versions, produce=produce)
    row = measure(ok, spec, ctx, RunOptions(0, 2))
    assert row.status == OK and produced == [0]  # eager: one checked launch (version 0), then the timed ones

    stale = torch.empty_like(p.a_full).copy_(p.a_full_versions[0])

    def run_stale():  # reads version 0 whatever was produced: a missing readiness signal
        torch.matmul(stale, p.b, out=out)

    case = _prepare(Variant("stale", run_stale, lambda: out, poison=lambda: poison(out), versions=2,
                            produce=produce), spec, ctx, RunOptions(0, 1))
    assert case.row.status == OK  # version 0 matches by luck
    status, _ = case.check(spec, ctx)  # the next checked launch: version 1
    assert status == WRONG and case.version == 1


def test_ce_and_nccl_rows_read_inputs_that_change_between_checks(ctx):
    spec = _spec(ctx, AG_GEMM)
    rows = {v.name: v for v in baseline_variants(spec, ctx) if v.na is None}
    for name in (SEQ_CUBLAS, SEQ_CE, CE_ALONE, COMM_ALONE):
        v = rows[name]
        v.setup()
        assert v.versions == 2
        for version in (1, 0):
            v.poison()
            v.produce(version)
            v.run()
            want = spec.problem.references[reference_key(v.expect, version)]
            assert check_result(v.result(), want).ok, (name, version)
        v.teardown()
