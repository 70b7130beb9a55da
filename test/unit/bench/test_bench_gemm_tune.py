"""The Triton GEMM tuner's pieces that need no GPU: the candidate list,
choosing the winner, the cache entry round trip and its errors."""

import json

import pytest

from syncopate.bench import autotune, gemm_tune
from syncopate.bench.configs import GemmConfig
from syncopate.bench.shapes import SHAPES


def shape(workload, name):
    return next(s for s in SHAPES if s.workload == workload and s.name == name)


def test_candidates_cover_the_kernels_and_are_valid_hopper_configs():
    kernels = {c.kernel for c in gemm_tune.CANDIDATES}
    assert kernels == {"ptr", "tma"}
    assert len(set(gemm_tune.CANDIDATES)) == len(gemm_tune.CANDIDATES)
    ag, rs = gemm_tune.candidates_for("ag-gemm"), gemm_tune.candidates_for("gemm-rs")
    assert {c.kernel for c in rs} == {"ptr", "tma", "persistent", "persistent-flat"}
    assert ag == tuple(c for c in rs if c.kernel != "persistent-flat")  # AG's fused kernel cannot flatten
    assert gemm_tune.candidates_for("gemm-ar") == rs  # the same partial GEMM, and its fused kernel waits for nothing
    assert gemm_tune.candidates_for("a2a-gemm") == ag  # the grouped GEMM has the same three kernels
    assert gemm_tune.candidates_for("ag-attn") == gemm_tune.CANDIDATES
    assert {c.kernel for c in gemm_tune.candidates_for("gemm-rs", cpu=True)} == {"ptr", "tma", "persistent",
                                                                              "persistent-flat"}
    for c in rs:  # shared memory per stage must fit 227 KiB on Hopper
        assert (c.block_m * c.block_k + c.block_k * c.block_n) * 2 * c.num_stages <= 227 * 1024, c


def test_best_is_the_fastest_timed_trial():
    a, b, c = GemmConfig(128, 256, 64, 8, 3), GemmConfig(128, 128, 64, 4, 4, kernel="tma"), GemmConfig(64, 64, 32, 4, 2)
    trials = [gemm_tune.Trial(a, 0.9, "ok"), gemm_tune.Trial(b, 0.8, "ok"), gemm_tune.Trial(c, None, "WRONG: x")]
    assert gemm_tune.best(trials).config == b
    assert gemm_tune.best([gemm_tune.Trial(c, None, "n/a: OutOfResources")]) is None
    text = gemm_tune.format_trials(shape("ag-gemm", "8192x8192x8192"), 2, trials, 0.72, 2.0 * 8192 * 8192 * 4096)
    assert "(local 8192x8192x4096)" in text and "<- best" in text.splitlines()[3]
    assert "WRONG: x" in text and "100.0%" in text


def test_cache_round_trip_and_a_broken_entry(tmp_path):
    path = str(tmp_path / "cache.json")
    s = shape("gemm-rs", "8192x8192x8192")
    winner = gemm_tune.Trial(GemmConfig(128, 256, 64, 8, 4, kernel="tma"), 0.86, "ok")
    assert gemm_tune.tuned_config(s, 2, "H200", path) is None
    gemm_tune.record(s, 2, "H200", winner, 0.73, path)
    assert gemm_tune.tuned_config(s, 2, "H200", path) == winner.config
    assert gemm_tune.tuned_config(s, 4, "H200", path) is None  # another world size is another situation
    data = json.load(open(path))
    data["entries"][gemm_tune.cache_key(s, 2, "H200")]["config"]["kernel"] = "wgmma"
    json.dump(data, open(path, "w"))
    with pytest.raises(autotune.AutotuneError, match="is not a GEMM config: GemmConfig.kernel must be one of ptr, tma"):
        gemm_tune.tuned_config(s, 2, "H200", path)


def test_tune_checks_all_then_times_round_robin_with_cublas(monkeypatch):
    import dataclasses

    from syncopate.bench.configs import CPU_DEFAULT
    from syncopate.bench.context import BenchWorld
    from syncopate.bench.cases import make_spec
    from syncopate.bench.timing import Timing

    ctx = BenchWorld.cpu_single()
    try:
        spec = make_spec(shape("gemm-rs", "cpu-tiny"), ctx, CPU_DEFAULT, seed=0)
        good, broken = CPU_DEFAULT, dataclasses.replace(CPU_DEFAULT, num_warps=2)
        check = gemm_tune._check
        monkeypatch.setattr(gemm_tune, "_check", lambda c, t, ctx: "n/a: OutOfResources" if c == broken
                            else check(c, t, ctx))  # a config too big for the GPU
        other = dataclasses.replace(CPU_DEFAULT, kernel="tma")
        timed = []
        speed = {good: 2.0, other: 1.0}

        def fake_time_run(run, device, warmup, iters):
            config = run.args[0] if hasattr(run, "args") else "cublas"
            timed.append(config)
            return Timing(0, 0, 0, iters, (speed.get(config, 3.0) + len(timed) * 1e-3,) * iters)

        monkeypatch.setattr(gemm_tune, "time_run", fake_time_run)
        trials, cublas, flops = gemm_tune.tune(spec, ctx, [good, broken, other], warmup=0, iters=2, rounds=3)
        assert timed == [good, other, "cublas"] * 3  # the broken one is out before any timing
        assert [t.status == "ok" for t in trials] == [True, False, True] and trials[1].status == "n/a: OutOfResources"
        assert gemm_tune.best(trials).config == other and cublas > 3.0 and flops > 0
        assert trials[0].ms == pytest.approx(2.0 + 4 * 1e-3)  # median over the rounds (launches 1, 4, 7)
    finally:
        ctx.close()


def test_tuned_configs_are_kept_per_dtype_and_bf16_keys_are_unchanged(tmp_path):
    """--dtype fp16 tunes and reads its own entries; the bf16 (default) key
    is the one caches written before --dtype existed hold."""
    path = str(tmp_path / "cache.json")
    s = shape("ag-gemm", "8192x8192x8192")
    bf16 = gemm_tune.Trial(GemmConfig(128, 256, 64, 8, 3), 1.0, "ok")
    fp16 = gemm_tune.Trial(GemmConfig(128, 128, 64, 4, 4), 1.1, "ok")
    gemm_tune.record(s, 2, "H200", bf16, 0.9, path)
    gemm_tune.record(s, 2, "H200", fp16, 0.9, path, "float16")
    assert gemm_tune.tuned_config(s, 2, "H200", path) == bf16.config
    assert gemm_tune.tuned_config(s, 2, "H200", path, "float16") == fp16.config
    assert gemm_tune.cache_key(s, 2, "H200") == f"gemm|ag-gemm|{s.key}|2|H200"
    assert autotune.TuneKey("ag-gemm", s.key, 2, "H200").text() == f"ag-gemm|{s.key}|2|H200"
    assert autotune.TuneKey("ag-gemm", s.key, 2, "H200", "float16").text() == f"ag-gemm|{s.key}|2|H200|float16"
