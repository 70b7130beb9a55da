"""overlap-bench's report: bounds, speedups, efficiency, text, CSV, JSON, PNG."""

import csv
import io
import json
import math

import pytest

from syncopate.bench.plot import write_png
from syncopate.bench.report import Row, Table, add_bounds, any_wrong, csv_text, format_table, json_text
from syncopate.bench.variants import (
    ALONE,
    ASYNC_TP,
    ASYNC_TP_NATIVE,
    BASELINE,
    BOUND_CUBLAS,
    BOUND_TRITON,
    CE_ALONE,
    COMM_ALONE,
    CUBLAS,
    CUBLAS_ALONE,
    FLOOR,
    FUSED,
    SEQ_CE,
    SEQ_CUBLAS,
    SEQ_TRITON,
    TRITON,
    TRITON_ALONE,
)


def synthetic() -> Table:
    t = Table("ag-gemm", "8192x8192x28672", "AG 8192x8192x14336", 8192, 8192, 28672, 2, "bfloat16", "H200")
    t.rows = [
        Row(SEQ_CUBLAS, BASELINE, "ok", 3.0, compute=CUBLAS, ms_ranks=[2.9, 3.0]),
        Row(SEQ_CE, BASELINE, "ok", 2.8, compute=CUBLAS),
        Row(ASYNC_TP, BASELINE, "ok", 2.5, compute=CUBLAS),
        Row(ASYNC_TP_NATIVE, BASELINE, "n/a: not run: torch's native async-TP path does not apply", compute=CUBLAS),
        Row(SEQ_TRITON, BASELINE, "ok", 4.0, compute=TRITON),
        Row(CUBLAS_ALONE, ALONE, "ok", 2.0),
        Row(TRITON_ALONE, ALONE, "ok", 2.4),
        Row(COMM_ALONE, ALONE, "ok", 1.0),
        Row(CE_ALONE, ALONE, "ok", 1.2),
        Row("syncopate ce/arrival", FUSED, "ok", 2.0, compute=TRITON, backend="ce", order="arrival", host_ms=0.5,
            round_ms=[2.1, 1.9, 2.0]),
        Row("syncopate ce/rotate", FUSED, "WRONG", None, compute=TRITON, backend="ce", order="rotate", error=0.9),
        Row("syncopate sm/arrival", FUSED, "n/a: GpuWorldError", None, compute=TRITON, backend="sm"),
    ]
    add_bounds(t)
    return t


def test_bounds_are_the_max_of_compute_alone_and_the_comm_floor():
    t = synthetic()
    assert t.ms(FLOOR) == 1.0  # min(NCCL 1.0, CE 1.2)
    assert t.ms(BOUND_CUBLAS) == 2.0  # max(2.0, 1.0)
    assert t.ms(BOUND_TRITON) == 2.4  # max(2.4, 1.0)
    add_bounds(t)  # idempotent
    assert [r.variant for r in t.rows].count(BOUND_TRITON) == 1 and [r.variant for r in t.rows].count(FLOOR) == 1


def test_the_floor_is_the_faster_transport_and_moves_the_bound():
    t = synthetic()
    for name, ms in ((COMM_ALONE, 3.0), (CE_ALONE, 2.6)):
        t.row(name).ms = ms
    add_bounds(t)
    assert t.ms(FLOOR) == 2.6  # the copy engines win: the floor follows them, not NCCL
    assert t.ms(BOUND_TRITON) == 2.6 and t.ms(BOUND_CUBLAS) == 2.6
    assert t.efficiency(t.row("syncopate ce/arrival")) == pytest.approx(2.6 / 2.0)


def test_the_floor_is_whichever_transport_was_measured():
    t = synthetic()
    t.row(CE_ALONE).status, t.row(CE_ALONE).ms = "n/a: not run: a copy engine moves bytes but does not add", None
    add_bounds(t)
    assert t.ms(FLOOR) == 1.0 and t.ms(BOUND_TRITON) == 2.4


def test_bound_is_na_when_a_part_is_missing():
    t = synthetic()
    for name in (COMM_ALONE, CE_ALONE):
        t.row(name).status, t.row(name).ms = "n/a: x", None
    add_bounds(t)
    assert t.row(FLOOR).status == "n/a: needs NCCL alone or CE alone"
    assert t.row(BOUND_TRITON).status == f"n/a: needs {FLOOR}"
    assert t.efficiency(t.row("syncopate ce/arrival")) is None


def test_async_tp_reference_is_the_faster_of_its_two_modes():
    t = synthetic()
    ours = t.row("syncopate ce/arrival")
    assert t.speedup(ours, ASYNC_TP) == pytest.approx(1.25)  # native is n/a: the default mode's 2.5
    native = t.row(ASYNC_TP_NATIVE)
    native.status, native.ms = "ok", 2.2
    assert t.speedup(ours, ASYNC_TP) == pytest.approx(1.1)  # 2.2 / 2.0
    native.ms = 2.9
    assert t.speedup(ours, ASYNC_TP) == pytest.approx(1.25)


def test_spread_is_the_range_of_the_round_medians_over_their_median():
    t = synthetic()
    assert t.row("syncopate ce/arrival").spread == pytest.approx(0.2 / 2.0)
    assert t.row(SEQ_CUBLAS).spread is None  # fewer than two rounds


def test_speedups_and_efficiency_arithmetic():
    t = synthetic()
    ours = t.row("syncopate ce/arrival")
    assert t.speedup(ours, SEQ_CUBLAS) == pytest.approx(1.5)  # 3.0 / 2.0
    assert t.speedup(ours, SEQ_CE) == pytest.approx(1.4)
    assert t.speedup(ours, ASYNC_TP) == pytest.approx(1.25)
    assert t.speedup(ours, SEQ_TRITON) == pytest.approx(2.0)
    assert t.efficiency(ours) == pytest.approx(2.4 / 2.0)  # Triton bound / time
    assert t.efficiency(t.row(SEQ_CUBLAS)) == pytest.approx(2.0 / 3.0)  # cuBLAS bound
    assert t.efficiency(t.row(SEQ_TRITON)) == pytest.approx(0.6)
    assert t.efficiency(t.row(CUBLAS_ALONE)) is None
    wrong = t.row("syncopate ce/rotate")
    assert t.speedup(wrong, SEQ_CUBLAS) is None and t.efficiency(wrong) is None


def test_format_table_shows_values_spread_host_time_and_statuses():
    t = synthetic()
    t.row("syncopate ce/arrival").headline = "fixed rule ce/arrival"
    text = format_table(t)
    lines = text.splitlines()
    assert lines[0].startswith("== ag-gemm  AG 8192x8192x14336") and lines[0].endswith("[explore] ==")
    ours = next(line for line in lines if line.startswith("syncopate ce/arrival"))
    assert ours.split()[2:11] == ["2.000", "1.50x", "1.40x", "1.25x", "2.00x", "1.20", "10.0%", "0.500", "ok"]
    assert ours.endswith("[headline: fixed rule ce/arrival]")
    wrong = next(line for line in lines if line.startswith("syncopate ce/rotate"))
    assert "WRONG (error 9.00e-01 x rms)" in wrong and " - " in wrong
    assert any(line.startswith("syncopate sm/arrival") and line.endswith("n/a: GpuWorldError") for line in lines)
    assert "earlier on" not in text  # no past timings in the output


def test_csv_has_one_line_per_row_with_derived_columns():
    t = synthetic()
    rows = list(csv.DictReader(io.StringIO(csv_text([t]))))
    assert len(rows) == len(t.rows) == 15
    ours = next(r for r in rows if r["variant"] == "syncopate ce/arrival")
    assert float(ours["ms"]) == 2.0 and ours["backend"] == "ce" and ours["order"] == "arrival"
    assert float(ours["speedup_vs_cublas_nccl"]) == pytest.approx(1.5)
    assert float(ours["bound_ms"]) == 2.4 and float(ours["efficiency"]) == pytest.approx(1.2)
    assert float(ours["speedup_vs_cublas_ce"]) == pytest.approx(1.4) and float(ours["spread"]) == pytest.approx(0.1)
    assert float(ours["host_ms"]) == 0.5 and ours["phase"] == "explore"
    seq = next(r for r in rows if r["variant"] == SEQ_CUBLAS)
    assert seq["ms_ranks"] == "2.900000;3.000000"
    na = next(r for r in rows if r["variant"] == "syncopate sm/arrival")
    assert na["ms"] == "" and na["status"] == "n/a: GpuWorldError"


def test_json_is_strict_and_keeps_rows_and_meta():
    t = synthetic()
    t.row("syncopate ce/rotate").error = math.nan  # NaN must become null, not invalid JSON
    doc = json.loads(json_text([t], {"world": 2, "iters": 50}))
    assert doc["meta"] == {"world": 2, "iters": 50}
    table = doc["tables"][0]
    assert table["label"] == "AG 8192x8192x14336" and len(table["rows"]) == 15 and table["phase"] == "explore"
    by_name = {r["variant"]: r for r in table["rows"]}
    assert by_name["syncopate ce/rotate"]["error"] is None
    assert by_name[SEQ_CUBLAS]["ms_ranks"] == [2.9, 3.0]
    assert by_name["syncopate ce/arrival"]["speedup_vs_triton_nccl"] == pytest.approx(2.0)


def test_any_wrong():
    t = synthetic()
    assert any_wrong([t])
    t.rows = [r for r in t.rows if r.status != "WRONG"]
    assert not any_wrong([t])


def test_png_is_written(tmp_path):
    # matplotlib is a test dependency (pip install -e '.[test]'): no skip without it
    path = tmp_path / "chart.png"
    assert write_png([synthetic(), synthetic()], str(path)) is None
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
