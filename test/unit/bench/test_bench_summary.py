"""overlap-bench's closing summary: the best checked row per shape, the means and the targets."""

import json
import math

import pytest

from syncopate.bench.report import CONFIRM, Row, Table, add_bounds, json_text
from syncopate.bench.summary import best_rows, format_summary, geomean, summary_record
from syncopate.bench.variants import (
    ALONE,
    ASYNC_TP,
    BASELINE,
    COMM_ALONE,
    FUSED,
    SEQ_CE,
    SEQ_CUBLAS,
    SEQ_TRITON,
    TRITON,
    TRITON_ALONE,
)


def table(label, seq, atp, fused, triton_alone=1.0, comm=0.5, workload="ag-gemm"):
    """A table with cuBLAS+NCCL ``seq``, async-TP ``atp`` (None: n/a) and fused rows {name: ms or status}."""
    t = Table(workload, label.replace(" ", "-"), label, 64, 64, 64, 2, "bfloat16", "NVIDIA H200")
    t.rows = [Row(SEQ_CUBLAS, BASELINE, "ok", seq),
              Row(ASYNC_TP, BASELINE, "ok", atp) if atp is not None else Row(ASYNC_TP, BASELINE, "n/a: none"),
              Row(SEQ_TRITON, BASELINE, "ok", seq * 1.1, compute=TRITON),
              Row(TRITON_ALONE, ALONE, "ok", triton_alone), Row(COMM_ALONE, ALONE, "ok", comm)]
    for name, value in fused.items():
        ok = isinstance(value, float)
        t.rows.append(Row(name, FUSED, "ok" if ok else value, value if ok else None, compute=TRITON))
    add_bounds(t)
    return t


def run():
    return [
        table("AG a", 2.0, 1.5, {"syncopate ce/arrival": 1.25, "syncopate ce/none": 1.0,
                                 "syncopate sm/arrival": "WRONG"}),  # best: ce/none, 1.0 ms
        table("AG b", 1.0, 0.8, {"syncopate ce/arrival": 1.25}, triton_alone=1.2),  # slower than both baselines
        table("attn", 3.0, None, {"syncopate ce/arrival": 2.0}, triton_alone=1.9, workload="ag-attn"),
        table("RS c", 1.0, 0.9, {"syncopate ce/arrival": "n/a: needs CUDA"}),  # no checked fused row
    ]


def test_the_best_row_is_the_fastest_checked_fused_row():
    best, without = best_rows(run())
    assert [(b.table.label, b.name, b.row.ms) for b in best] == [
        ("AG a", "ce/none", 1.0), ("AG b", "ce/arrival", 1.25), ("attn", "ce/arrival", 2.0)]
    assert [t.label for t in without] == ["RS c"]
    a, b, attn = best
    assert (a.vs_sequential, a.vs_async_tp, a.efficiency) == (pytest.approx(2.0), pytest.approx(1.5), pytest.approx(1.0))
    assert (b.vs_sequential, b.vs_async_tp, b.efficiency) == (0.8, pytest.approx(0.64), pytest.approx(0.96))
    assert attn.vs_async_tp is None and attn.vs_sequential == 1.5


def test_summary_text_states_means_and_targets():
    text = format_summary(run())
    lines = text.splitlines()
    assert lines[0].startswith("== summary [explore]: best checked syncopate row per shape (best-of-N")
    assert any(line.startswith("ag-gemm AG a") and "ce/none" in line and "2.00x" in line for line in lines)
    assert "RS c  2  (no checked syncopate row)" in text
    g_seq = (2.0 * 0.8 * 1.5) ** (1 / 3)
    assert f"geometric mean vs cuBLAS+NCCL: {g_seq:.2f}x over 3 shapes (target 1.3x: met)" in text
    assert f"geometric mean vs async-TP: {math.sqrt(1.5 * 0.64):.2f}x over 2 shapes" in text
    assert "faster than cuBLAS+NCCL on 2/3 shapes (missed: AG b)" in text
    assert "faster than async-TP on 1/2 shapes (missed: AG b)" in text
    assert "efficiency >= 0.9 on 3/3 shapes" in text


def test_a_run_without_fused_rows_says_so():
    text = format_summary([table("RS c", 1.0, 0.9, {"syncopate ce/arrival": "n/a: needs CUDA"})])
    assert text.splitlines()[1] == "no checked syncopate row in this run (nothing to compare)"
    assert geomean([]) is None


def test_summary_goes_into_the_json_document():
    doc = json.loads(json_text(run(), {"world": 2}, summary_record(run())))
    s = doc["summary"]
    assert [b["variant"] for b in s["best"]] == ["syncopate ce/none", "syncopate ce/arrival", "syncopate ce/arrival"]
    assert s["best"][2]["speedup_vs_async_tp"] is None
    assert s["without_fused_row"] == [{"workload": "ag-gemm", "shape": "RS-c"}]
    assert s["geomean_vs_cublas_nccl"] == pytest.approx((2.0 * 0.8 * 1.5) ** (1 / 3))
    assert s["target_geomean"] == 1.3 and s["target_efficiency"] == 0.9


def test_no_comm_rows_are_compared_with_triton_alone():
    from syncopate.bench.summary import no_comm_ratios
    from syncopate.bench.variants import NO_COMM

    tables = run()
    tables[0].rows.append(Row(NO_COMM, ALONE, "ok", 1.02))  # Triton alone 1.0
    tables[1].rows.append(Row(NO_COMM, ALONE, "ok", 1.5))  # Triton alone 1.2: the worst
    tables[2].rows.append(Row(NO_COMM, ALONE, "n/a: no fused kernel without communication for ag-attn"))
    tables[3].rows.append(Row(NO_COMM, ALONE, "ok", 0.9))  # a table without a checked fused row counts too
    assert [(t.label, pytest.approx(r)) for t, r in no_comm_ratios(tables)] == [
        ("AG a", 1.02), ("AG b", 1.25), ("RS c", 0.9)]
    line = format_summary(tables).splitlines()[-1]
    assert line == ("fused kernel without communication / Triton alone: geometric mean "
                    f"{geomean([1.02, 1.25, 0.9]):.3f} over 3 shapes, worst 1.250 (ag-gemm AG b)")
    record = summary_record(tables)["no_comm_vs_triton_alone"]
    assert [(r["shape"], round(r["ratio"], 6)) for r in record] == [("AG-a", 1.02), ("AG-b", 1.25), ("RS-c", 0.9)]
    assert "without communication" not in format_summary(run())  # no such rows, no line


def test_the_ceiling_is_cublas_nccl_over_the_best_rows_bound():
    best, _ = best_rows(run())
    # bound max(Triton alone, NCCL alone): AG a 1.0, AG b 1.2, attn 1.9
    assert [b.ceiling for b in best] == [pytest.approx(2.0), pytest.approx(1.0 / 1.2), pytest.approx(3.0 / 1.9)]
    text = format_summary(run())
    g = (2.0 * (1.0 / 1.2) * (3.0 / 1.9)) ** (1 / 3)
    assert (f"ceiling (perfect overlap of the same kernels): {g:.2f}x over 3 shapes "
            "(cuBLAS+NCCL / bound max(kernel, floor min(NCCL, CE)); the target is within reach)") in text
    record = summary_record(run())
    assert record["geomean_ceiling_vs_cublas_nccl"] == pytest.approx(g)
    assert [b["ceiling_vs_cublas_nccl"] for b in record["best"]] == [b.ceiling for b in best]


def test_a_ceiling_below_the_target_says_overlap_alone_cannot_meet_it():
    # compute 1.0 ms, communication 0.1 ms: cuBLAS+NCCL 1.1 ms, so perfect overlap gives 1.1x
    text = format_summary([table("AG big", 1.1, 1.05, {"syncopate ce/arrival": 1.02}, comm=0.1)])
    assert "geometric mean vs cuBLAS+NCCL: 1.08x over 1 shapes (target 1.3x: missed)" in text
    assert ("ceiling (perfect overlap of the same kernels): 1.10x over 1 shapes (cuBLAS+NCCL / bound max(kernel, "
            "floor min(NCCL, CE)); the target is out of reach of these kernels, however well they overlap)") in text
    row = next(line for line in text.splitlines() if line.startswith("ag-gemm AG big"))
    assert row.split()[-3] == "1.10x" and row.split()[-4] == "0.98"  # then spread and host ms: not measured


def test_a_shape_without_its_bound_leaves_the_ceiling_unstated():
    t = table("AG a", 2.0, 1.5, {"syncopate ce/arrival": 1.25})
    t.rows = [r for r in t.rows if r.variant != TRITON_ALONE]  # no Triton alone: no Triton bound
    add_bounds(t)
    text = format_summary([t])
    assert "ceiling (perfect overlap of the same kernels): - (a shape lacks its bound)" in text


def confirmed(label, seq, fused, headline):
    """A confirmation table: ``headline`` names the row chosen before timing."""
    t = table(label, seq, None, fused)
    t.phase = CONFIRM
    for r in t.rows:
        r.headline = "fixed rule ce/arrival" if r.variant == headline else ""
    return t


def test_a_confirmation_is_judged_by_its_headline_not_its_fastest_row():
    t = confirmed("AG a", 2.0, {"syncopate ce/arrival": 1.6, "syncopate ce/arrival/direct": 1.2},
                  "syncopate ce/arrival")
    best, without = best_rows([t])
    assert [(b.name, b.vs_sequential) for b in best] == [("ce/arrival", pytest.approx(1.25))] and not without
    t.row("syncopate ce/arrival").status = "n/a: lost"  # the headline failed: no verdict, not the next-best row
    best, without = best_rows([t])
    assert best == [] and without == [t]


def test_exploration_best_of_n_never_picks_a_direct_row():
    t = table("AG a", 2.0, 1.5, {"syncopate ce/arrival": 1.6, "syncopate ce/arrival/direct": 1.2})
    best, _ = best_rows([t])
    assert [b.name for b in best] == ["ce/arrival"]


def test_a_run_with_both_phases_leads_with_the_confirmation():
    explore = table("AG a", 2.0, 1.5, {"syncopate ce/arrival": 1.6, "syncopate sm/arrival": 1.0})
    confirm = confirmed("AG a", 2.0, {"syncopate ce/arrival": 1.6}, "syncopate ce/arrival")
    text = format_summary([explore, confirm])
    sections = text.split("\n\n")
    assert sections[0].startswith("== summary [confirm]: the headline row per shape (chosen before timing)")
    assert "1.25x" in sections[0] and sections[1].startswith("== summary [explore]")
    record = summary_record([explore, confirm])
    assert record["phase"] == "confirm" and record["best"][0]["headline"] == "fixed rule ce/arrival"
    assert record["geomean_vs_cublas_nccl"] == pytest.approx(1.25)
    assert record["explore"]["phase"] == "explore" and record["explore"]["best"][0]["variant"] == "syncopate sm/arrival"


def test_the_copy_engine_baseline_gets_its_own_mean_where_it_was_measured():
    tables = run()
    tables[0].rows.append(Row(SEQ_CE, BASELINE, "ok", 1.6))  # AG a's best row: 1.0 ms
    tables[1].rows.append(Row(SEQ_CE, BASELINE, "ok", 0.9))  # AG b's: 1.25 ms
    best, _ = best_rows(tables)
    assert [b.vs_ce_sequential for b in best] == [pytest.approx(1.6), pytest.approx(0.72), None]
    text = format_summary(tables)
    assert (f"geometric mean vs cuBLAS+CE (copy-engine all-gather, then cuBLAS): {math.sqrt(1.6 * 0.72):.2f}x "
            "over 2 shapes") in text
    assert summary_record(tables)["geomean_vs_cublas_ce"] == pytest.approx(math.sqrt(1.6 * 0.72))
    assert "vs cuBLAS+CE" not in format_summary(run())
