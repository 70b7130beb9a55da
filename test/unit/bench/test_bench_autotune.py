"""overlap-bench --autotune: the cache of the best (backend, order)."""

import json

import pytest
from spec_text import same_pipeline

from syncopate.bench.autotune import AutotuneError, TuneKey, best_choice, best_of, load_cache, record
from syncopate.bench.report import Row, Table
from syncopate.bench.variants import BASELINE, FUSED, SEQ_CUBLAS, TRITON


def table(world=2, rows=None):
    t = Table("ag-gemm", "8192x8192x8192", "AG 8192x8192x4096", 8192, 8192, 8192, world, "bfloat16", "NVIDIA H200")
    t.rows = rows if rows is not None else [
        Row(SEQ_CUBLAS, BASELINE, "ok", 0.5),  # faster, but not a syncopate row
        Row("syncopate ce/arrival", FUSED, "ok", 1.1, compute=TRITON, backend="ce", order="arrival"),
        Row("syncopate ce/rotate", FUSED, "ok", 0.9, compute=TRITON, backend="ce", order="rotate"),
        Row("syncopate sm/none", FUSED, "WRONG", None, compute=TRITON, backend="sm", order="none"),
        Row("syncopate nccl/none", FUSED, "n/a: x", None, compute=TRITON, backend="nccl", order="none"),
    ]
    return t


def test_best_of_picks_the_fastest_checked_fused_row():
    choice = best_of(table())
    assert (choice.backend, choice.order, choice.ms) == ("ce", "rotate", 0.9)
    assert same_pipeline(choice.pipeline, "overlap{order=rotate backend=ce}")
    assert best_of(table(rows=[Row("syncopate sm/none", FUSED, "WRONG", None, backend="sm", order="none")])) is None


def test_cache_round_trip(tmp_path):
    path = str(tmp_path / "sub" / "autotune.json")
    results = record([table(2), table(4)], path)
    assert [(k.world, c.order) for k, c in results] == [(2, "rotate"), (4, "rotate")]
    key = TuneKey("ag-gemm", "8192x8192x8192", 2, "NVIDIA H200")
    got = best_choice(key, path)
    assert (got.backend, got.order, got.ms, got.variant) == ("ce", "rotate", 0.9, "syncopate ce/rotate")
    assert best_choice(("ag-gemm", "8192x8192x8192", 8, "NVIDIA H200"), path) is None
    on_disk = json.loads(open(path).read())
    assert on_disk["version"] == 1 and "ag-gemm|8192x8192x8192|2|NVIDIA H200" in on_disk["entries"]


def test_a_table_without_a_checked_row_keeps_the_old_entry(tmp_path):
    path = str(tmp_path / "autotune.json")
    record([table()], path)
    record([table(rows=[Row("syncopate ce/none", FUSED, "n/a: y", None, backend="ce", order="none")])], path)
    assert best_choice(TuneKey("ag-gemm", "8192x8192x8192", 2, "NVIDIA H200"), path).order == "rotate"


def test_missing_and_corrupt_caches(tmp_path):
    assert load_cache(str(tmp_path / "none.json")) == {}
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(AutotuneError, match="unreadable"):
        best_choice(TuneKey("a", "1x1x1", 1, "cpu"), str(bad))
    bad.write_text('{"version": 99, "entries": {}}')
    with pytest.raises(AutotuneError, match="not a version-1"):
        load_cache(str(bad))


def test_chunks_and_lanes_are_part_of_the_choice(tmp_path):
    path = str(tmp_path / "autotune.json")
    rows = [Row("syncopate ce/arrival", FUSED, "ok", 1.0, compute=TRITON, backend="ce", order="arrival", chunks=1,
                lanes=1),
            Row("syncopate ce/arrival/c2/l3", FUSED, "ok", 0.8, compute=TRITON, backend="ce", order="arrival",
                chunks=2, lanes=3)]
    record([table(rows=rows)], path)
    got = best_choice(("ag-gemm", "8192x8192x8192", 2, "NVIDIA H200"), path)
    assert (got.chunks, got.lanes, got.variant) == (2, 3, "syncopate ce/arrival/c2/l3")
    assert got.tile == ""


def test_the_tile_is_part_of_the_choice(tmp_path):
    path = str(tmp_path / "autotune.json")
    rows = [Row("syncopate ce/arrival", FUSED, "ok", 1.0, compute=TRITON, backend="ce", order="arrival", tile=""),
            Row("syncopate ce/arrival/t128x128", FUSED, "ok", 0.9, compute=TRITON, backend="ce", order="arrival",
                tile="128x128")]
    record([table(rows=rows)], path)
    got = best_choice(("ag-gemm", "8192x8192x8192", 2, "NVIDIA H200"), path)
    assert (got.tile, got.variant) == ("128x128", "syncopate ce/arrival/t128x128")


def test_a_run_that_did_not_time_the_cached_choice_cannot_evict_a_faster_one(tmp_path):
    path = str(tmp_path / "autotune.json")
    key = ("ag-gemm", "8192x8192x8192", 2, "NVIDIA H200")
    record([table()], path)  # ce/rotate 0.9 ms
    sm_only = [Row("syncopate sm/arrival", FUSED, "ok", 1.2, compute=TRITON, backend="sm", order="arrival")]
    [(_, kept)] = record([table(rows=sm_only)], path)
    assert (kept.text(), kept.ms) == ("ce/rotate", 0.9) and best_choice(key, path).order == "rotate"
    faster = [Row("syncopate sm/arrival/c2", FUSED, "ok", 0.7, compute=TRITON, backend="sm", order="arrival", chunks=2)]
    record([table(rows=faster)], path)  # a faster row always wins
    assert best_choice(key, path).text() == "sm/arrival/c2"
    # the same table timed the cached options too (slower this time): the side-by-side winner replaces it
    both = [Row("syncopate sm/arrival/c2", FUSED, "ok", 1.0, compute=TRITON, backend="sm", order="arrival", chunks=2),
            Row("syncopate ce/none/t64x128", FUSED, "ok", 0.95, compute=TRITON, backend="ce", order="none",
                tile="64x128")]
    [(_, now)] = record([table(rows=both)], path)
    assert now.text() == "ce/none/t64x128" and best_choice(key, path).ms == 0.95


def test_the_reduction_is_part_of_the_choice(tmp_path):
    path = str(tmp_path / "autotune.json")
    key = ("gemm-rs", "8192x8192x8192", 2, "NVIDIA H200")
    rows = [Row("syncopate ce/arrival/c2", FUSED, "ok", 1.0, compute=TRITON, backend="ce", order="arrival", chunks=2,
                reduce="stream"),
            Row("syncopate ce/arrival/c2/epi", FUSED, "ok", 0.9, compute=TRITON, backend="ce", order="arrival",
                chunks=2, reduce="epilogue")]
    t = table(rows=rows)
    t.workload = "gemm-rs"
    record([t], path)
    got = best_choice(key, path)
    assert (got.reduce, got.text()) == ("epilogue", "ce/arrival/c2/epi")
    assert same_pipeline(got.pipeline, "overlap{order=arrival backend=ce reduce=epilogue}")
    # the same options reducing on the stream are another choice: a run timing only those cannot evict it
    [(_, kept)] = record([t.__class__(**{**t.__dict__, "rows": rows[:1]})], path)
    assert kept.reduce == "epilogue" and best_choice(key, path).ms == 0.9


def test_entries_written_before_the_reduction_existed_reduce_on_the_stream(tmp_path):
    path = tmp_path / "autotune.json"
    path.write_text(json.dumps({"version": 1, "entries": {"gemm-rs|8x8x8|2|H200": {
        "backend": "ce", "order": "arrival", "chunks": 2, "lanes": 1, "tile": "", "ms": 1.0, "variant": "v"}}}))
    got = best_choice(("gemm-rs", "8x8x8", 2, "H200"), str(path))
    assert got.reduce == "stream" and same_pipeline(got.pipeline, "overlap{order=arrival backend=ce}")
