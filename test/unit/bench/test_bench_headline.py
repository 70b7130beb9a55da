"""The headline row of a confirmation run: chosen before timing, from an earlier run's cache or a fixed rule."""

import json

import pytest

from syncopate.bench.autotune import AutotuneError, Choice, TuneKey
from syncopate.bench.headline import choose, from_choice, mark, rows_of
from syncopate.bench.variants import FusedOptions, Variant

KEY = TuneKey("ag-gemm", "8192x8192x28672", 2, "NVIDIA H200")


def test_without_a_cached_choice_the_fixed_rule_is_the_headline(tmp_path):
    h = choose(KEY, 3, str(tmp_path / "missing.json"))
    assert h.options == FusedOptions("ce", "arrival", 1, 3) and h.source == "fixed rule ce/arrival"


def test_a_cached_choice_from_an_earlier_run_is_the_headline(tmp_path):
    cache = tmp_path / "autotune.json"
    entry = {"backend": "ce", "order": "rotate", "chunks": 2, "lanes": 2, "tile": "128x128", "reduce": "stream",
             "ms": 1.5, "variant": "syncopate ce/rotate/c2/l2/t128x128", "measured": 0}
    cache.write_text(json.dumps({"version": 1, "entries": {KEY.text(): entry}}))
    h = choose(KEY, 1, str(cache))
    assert h.options == FusedOptions("ce", "rotate", 2, 2, "128x128")
    assert h.source == "autotune cache (ce/rotate/c2/l2/t128x128, 1.500 ms in an earlier run)"
    other = TuneKey("ag-gemm", "8192x8192x28672", 4, "NVIDIA H200")  # another W: not this cache entry
    assert choose(other, 1, str(cache)).source == "fixed rule ce/arrival"
    cache.write_text("{broken")
    with pytest.raises(AutotuneError):
        choose(KEY, 1, str(cache))


def test_ag_gemm_confirms_the_direct_twin_too_but_only_the_staged_row_is_the_headline():
    h = from_choice(Choice("sm", "arrival", 2.0, "syncopate sm/arrival"), 1)
    rows = rows_of(h, "ag-gemm")
    assert [r.name for r in rows] == ["syncopate sm/arrival", "syncopate sm/arrival/direct"]
    assert [r.name for r in rows_of(h, "gemm-rs")] == ["syncopate sm/arrival"]
    variants = mark([Variant(r.name, meta=dict(r.meta)) for r in rows], h)
    assert variants[0].meta["headline"] == h.source and "headline" not in variants[1].meta
