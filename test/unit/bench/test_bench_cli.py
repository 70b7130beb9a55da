"""overlap-bench end to end: --cpu writes the tables, usage errors exit 2."""

import csv
import json
import os
import subprocess
import sys

import pytest

from syncopate.bench.baselines import CE_REDUCE, NO_FUSED_AR
from syncopate.bench.variants import (
    ASYNC_TP,
    ASYNC_TP_NATIVE,
    BOUND_TRITON,
    CE_ALONE,
    COMM_ALONE,
    CUBLAS_ALONE,
    FLOOR,
    NO_COMM,
    SEQ_CE,
    SEQ_CUBLAS,
    SEQ_TRITON,
    SYMM_ONE_SHOT,
    SYMM_TWO_SHOT,
    TRITON_ALONE,
)


def bench(*args, env=None):
    environ = dict(os.environ if env is None else env)
    return subprocess.run([sys.executable, "-m", "syncopate.tools.overlap_bench", *args], capture_output=True,
                          text=True, env=environ, timeout=240)


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    cache = out / "autotune.json"
    proc = bench("--cpu", "--out", str(out), "--workload", "ag-gemm,gemm-rs,a2a-gemm,ag-attn", "--iters", "2",
                 "--warmup", "0", "--autotune", "--cache", str(cache))
    return proc, out, cache


def test_cpu_run_exits_0_and_prints_tables_and_progress(cpu_run):
    proc, _, _ = cpu_run
    assert proc.returncode == 0, proc.stderr
    assert "== ag-gemm  AG 64x48x40" in proc.stdout and "== gemm-rs  RS 64x48x40" in proc.stdout
    assert "== a2a-gemm  A2A+GG tokens=32" in proc.stdout and "== ag-attn  AG-KV attn seq=64" in proc.stdout
    assert "== summary [explore]: best checked syncopate row per shape (best-of-N" in proc.stdout
    assert "no checked syncopate row in this run" in proc.stdout  # the fused rows need CUDA
    assert "fused kernel without communication / Triton alone: geometric mean" in proc.stdout
    progress = [line for line in proc.stderr.splitlines() if line.startswith("[1/4] ag-gemm")]
    assert any("Triton+NCCL" in line and line.rstrip().endswith("s)") for line in progress)


def test_cpu_run_writes_csv_json_png(cpu_run):
    _, out, _ = cpu_run
    rows = list(csv.DictReader(open(out / "results.csv")))
    by = {(r["workload"], r["variant"]): r for r in rows}
    for workload in ("ag-gemm", "gemm-rs"):
        for name in (SEQ_CUBLAS, SEQ_TRITON, TRITON_ALONE, COMM_ALONE):
            assert by[(workload, name)]["status"] == "ok" and float(by[(workload, name)]["ms"]) > 0
        assert by[(workload, ASYNC_TP)]["status"] == "n/a: needs CUDA"
        assert by[(workload, "syncopate ce/arrival")]["status"] == "n/a: needs CUDA"
        floor = min(float(by[(workload, r)]["ms"]) for r in (COMM_ALONE, CE_ALONE) if by[(workload, r)]["ms"])
        assert float(by[(workload, FLOOR)]["ms"]) == floor
        assert float(by[(workload, BOUND_TRITON)]["ms"]) == max(float(by[(workload, TRITON_ALONE)]["ms"]), floor)
    assert by[("ag-gemm", CE_ALONE)]["status"] == "ok" and by[("gemm-rs", CE_ALONE)]["status"].startswith("n/a")
    for workload, why in (("a2a-gemm", "all-to-all GEMM"), ("ag-attn", "all-gather attention")):
        for name in (SEQ_CUBLAS, SEQ_TRITON, TRITON_ALONE, COMM_ALONE):  # SDPA / per-segment matmuls for "cuBLAS"
            assert by[(workload, name)]["status"] == "ok", (workload, name)
        assert by[(workload, ASYNC_TP)]["status"] == f"n/a: torch has no fused {why}"
    for workload in ("ag-gemm", "gemm-rs", "a2a-gemm"):  # the fused kernel with every chunk in place runs here too
        assert by[(workload, NO_COMM)]["status"] == "ok" and float(by[(workload, NO_COMM)]["ms"]) > 0
    assert by[("ag-attn", NO_COMM)]["status"] == "n/a: no fused kernel without communication for ag-attn"
    doc = json.load(open(out / "results.json"))
    assert [r["workload"] for r in doc["summary"]["no_comm_vs_triton_alone"]] == ["ag-gemm", "gemm-rs", "a2a-gemm"]
    assert doc["meta"]["cpu"] is True and doc["meta"]["iters"] == 2 and doc["meta"]["world"] == 1
    assert doc["meta"]["rounds"] == 1  # --cpu default
    assert doc["summary"]["best"] == [] and len(doc["summary"]["without_fused_row"]) == 4
    assert doc["meta"]["sms"] is None and doc["meta"]["nccl_high_priority"] is None  # GPU-world facts; no GPU here
    assert [t["workload"] for t in doc["tables"]] == ["ag-gemm", "gemm-rs", "a2a-gemm", "ag-attn"]
    assert len(rows) == sum(len(t["rows"]) for t in doc["tables"])
    assert (out / "results.png").read_bytes()[:4] == b"\x89PNG"


def test_auto_rows_run_the_cached_choice(tmp_path):
    cache = tmp_path / "autotune.json"
    entry = {"backend": "sm", "order": "rotate", "chunks": 2, "lanes": 1, "tile": "32x16", "ms": 1.0,
             "variant": "syncopate sm/rotate/c2/t32x16", "measured": 0}
    cache.write_text(json.dumps({"version": 1, "entries": {"ag-gemm|64x48x40|1|cpu": entry}}))
    proc = bench("--cpu", "--out", str(tmp_path), "--workload", "ag-gemm,gemm-rs", "--backends", "ce,auto",
                 "--orders", "arrival,none", "--iters", "1", "--warmup", "0", "--cache", str(cache))
    assert proc.returncode == 0, proc.stderr
    names = [r["variant"] for r in csv.DictReader(open(tmp_path / "results.csv")) if r["group"] == "fused"]
    assert names == ["syncopate ce/arrival", "syncopate ce/none", "syncopate auto=sm/rotate/c2/t32x16",  # cached
                     "syncopate ce/arrival", "syncopate ce/none", "syncopate auto/arrival", "syncopate auto/none"]
    cache.write_text("{broken")
    proc = bench("--cpu", "--out", str(tmp_path), "--workload", "ag-gemm", "--backends", "auto", "--iters", "1",
                 "--warmup", "0", "--cache", str(cache))
    assert proc.returncode == 2 and f"autotune cache {cache} is unreadable" in proc.stderr, proc.stderr


def test_cpu_run_autotune_leaves_na_tables_unchanged(cpu_run):
    proc, _, cache = cpu_run
    assert "autotune ag-gemm|64x48x40|1|cpu: no checked syncopate row: unchanged" in proc.stdout
    assert json.load(open(cache)) == {"version": 1, "entries": {}}


@pytest.mark.parametrize("args, message", [
    (["--cpu", "--workload", "ag-gemm,moe"], "--workload: unknown workload 'moe'"),
    (["--cpu", "--shapes", "huge"], "--shapes: no shape 'huge'"),
    (["--cpu", "--backends", "ce,tma"], "--backends: unknown value 'tma'"),
    (["--cpu", "--iters", "0"], "--iters must be >= 1"),
    (["--cpu", "--rounds", "0"], "--rounds must be >= 1, got 0"),
    (["--cpu", "--chunks", "1,two"], "--chunks: not a list of integers: '1,two'"),
    (["--cpu", "--chunks", "0"], "--chunks: every value must be >= 1"),
    (["--cpu", "--sms", "0"], "--sms must be >= 1, got 0"),
    (["--cpu", "--lanes", "1,x"], "--lanes: not a list of integers: '1,x'"),
    (["--cpu", "--lanes", "2,0"], "--lanes: every value must be >= 1"),
    (["--cpu", "--tiles", "shape,128x96"], "--tiles: tile '128x96' is not BMxBN or BMxBNxBK"),
    (["--cpu", "--tiles", "128"], "--tiles: tile '128' is not BMxBN"),
    (["--cpu", "--tiles", ","], "--tiles: give at least one tile or 'shape'"),
    (["--cpu", "--reduce", "stream,tail"], "--reduce: unknown value 'tail' (choose from stream, epilogue, push)"),
    (["--cpu", "--attn-waits", "hoist,late"], "--attn-waits: unknown value 'late' (choose from hoist, walk)"),
    (["--cpu", "--phases", "explore,verify"], "--phases: unknown value 'verify' (choose from explore, confirm)"),
    (["--list-shapes", "--world", "3", "--shapes", "anchor"], "is not divisible by W=3"),
    (["--cpu", "--dtype", "fp16"], "--dtype fp16 applies to GPU runs"),
    (["--cpu", "--dtype", "fp8"], "argument --dtype: invalid choice: 'fp8'"),
])
def test_usage_errors_exit_2_naming_the_option(args, message, capsys):
    """Run in this process (each error ends before any work starts); the
    command-line test below checks that the process's exit code is main's."""
    from syncopate.tools import overlap_bench

    try:
        code = overlap_bench.main(list(args))
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2 and message in err, err


def test_a_usage_error_exits_2_from_the_command_line():
    proc = bench("--cpu", "--iters", "0")
    assert proc.returncode == 2 and "--iters must be >= 1" in proc.stderr, proc.stderr


def test_gpu_mode_outside_torchrun_says_how_to_launch():
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "TRITON_INTERPRET")}
    proc = bench("--workload", "ag-gemm", "--shapes", "quick", env=env)
    assert proc.returncode == 2
    assert "torchrun --nproc-per-node=W -m syncopate.tools.overlap_bench" in proc.stderr


def test_list_shapes():
    proc = bench("--list-shapes", "--world", "4")
    assert proc.returncode == 0
    assert "AG 8192x8192x7168" in proc.stdout and "RS 8192x2048x28672" in proc.stdout
    assert "AR 8192x2048x28672" in proc.stdout
    paper = bench("--list-shapes", "--world", "4", "--workload", "gemm-ar", "--shapes", "paper")
    assert paper.returncode == 0, paper.stderr
    assert [line.split()[1] for line in paper.stdout.splitlines()[1:]] == [
        "paper-llama-7b", "paper-llama-3.1-8b", "paper-llama-3.1-70b", "paper-llama-3.1-405b", "paper-qwen2-72b"]
    assert "AR 8192x13312x16384" in paper.stdout


def test_cpu_gemm_ar_at_w2_checks_every_row_on_both_ranks(tmp_path):
    """--cpu --world 2 starts two gloo ranks: every row that can run on the
    CPU is checked against the whole sum on each rank, the rest say why not."""
    proc = bench("--cpu", "--world", "2", "--workload", "gemm-ar", "--out", str(tmp_path), "--backends", "ce,sm",
                 "--orders", "arrival", "--iters", "1", "--warmup", "0")
    assert proc.returncode == 0, proc.stderr
    assert "== gemm-ar  AR 64x24x40  (M=64 K=48 N=40, W=2, float32, cpu) [explore] ==" in proc.stdout
    rows = {r["variant"]: r for r in csv.DictReader(open(tmp_path / "results.csv"))}
    for name in (SEQ_CUBLAS, SEQ_TRITON, CUBLAS_ALONE, TRITON_ALONE, COMM_ALONE, NO_COMM):
        assert rows[name]["status"] == "ok" and len(rows[name]["ms_ranks"].split(";")) == 2, name
    assert {name: rows[name]["status"] for name in (SEQ_CE, ASYNC_TP, ASYNC_TP_NATIVE, SYMM_ONE_SHOT, SYMM_TWO_SHOT,
                                                      CE_ALONE)} == {
        SEQ_CE: f"n/a: {CE_REDUCE}", ASYNC_TP: f"n/a: {NO_FUSED_AR}", ASYNC_TP_NATIVE: f"n/a: {NO_FUSED_AR}",
        SYMM_ONE_SHOT: "n/a: needs CUDA", SYMM_TWO_SHOT: "n/a: needs CUDA", CE_ALONE: f"n/a: {CE_REDUCE}"}
    assert rows["syncopate ce/arrival"]["status"] == rows["syncopate sm/arrival"]["status"] == "n/a: needs CUDA"
    assert json.load(open(tmp_path / "results.json"))["meta"]["world"] == 2


def test_tune_gemm_checks_times_caches_and_reuses_the_winner(tmp_path):
    cache = tmp_path / "autotune.json"
    common = ("--cpu", "--workload", "gemm-rs", "--iters", "1", "--warmup", "0", "--backends", "ce", "--orders",
              "arrival", "--cache", str(cache))
    tuned = bench(*common, "--tune-gemm", "--out", str(tmp_path / "a"))
    assert tuned.returncode == 0, tuned.stderr
    assert "-- Triton GEMM tuning: gemm-rs RS 64x48x40 (local 64x48x40) --" in tuned.stdout
    trials = [line for line in tuned.stdout.splitlines() if line.startswith(("ptr ", "tma ", "persistent"))]
    # the pointer and TMA kernels, and for gemm-rs the persistent one with and without FLATTEN (any may win)
    assert len(trials) == 4 and all(" ok" in line for line in trials), tuned.stdout
    [winner] = [line for line in trials if line.endswith("<- best")]
    entry = json.load(open(cache))["entries"]["gemm|gemm-rs|64x48x40|1|cpu"]
    assert winner.startswith(entry["config"]["kernel"] + " ") and entry["ms"] > 0
    again = bench(*common, "--out", str(tmp_path / "b"))  # no tuning: the cached winner is used
    assert again.returncode == 0, again.stderr
    assert "Triton GEMM tuning" not in again.stdout
    assert f"Triton kernel {entry['config']['kernel']} 16x16x16" in again.stdout


def test_tune_gemm_tunes_the_moe_grouped_gemm(tmp_path):
    cache = tmp_path / "autotune.json"
    tuned = bench("--cpu", "--workload", "a2a-gemm", "--iters", "1", "--warmup", "0", "--backends", "ce", "--orders",
                  "arrival", "--cache", str(cache), "--tune-gemm", "--out", str(tmp_path / "a"))
    assert tuned.returncode == 0, tuned.stderr
    assert "-- Triton GEMM tuning: a2a-gemm A2A+GG" in tuned.stdout and "TFLOP per rank) --" in tuned.stdout
    trials = [line for line in tuned.stdout.splitlines() if line.startswith(("ptr ", "tma "))]
    assert len(trials) == 2 and all(" ok" in line for line in trials), tuned.stdout
    [key] = [k for k in json.load(open(cache))["entries"] if k.startswith("gemm|a2a-gemm|")]
    assert key.endswith("|1|cpu")


def test_confirm_runs_the_headline_chosen_before_timing(tmp_path):
    """The confirmation's syncopate rows are the cache's choice from an
    earlier run (else the fixed rule) and, for ag-gemm, its /direct twin;
    the exploration of the same run does not change that choice."""
    cache = tmp_path / "autotune.json"
    entry = {"backend": "sm", "order": "rotate", "chunks": 2, "lanes": 1, "tile": "", "ms": 1.0,
             "variant": "syncopate sm/rotate/c2", "measured": 0}
    cache.write_text(json.dumps({"version": 1, "entries": {"ag-gemm|64x48x40|1|cpu": entry}}))
    proc = bench("--cpu", "--out", str(tmp_path), "--workload", "ag-gemm,gemm-rs", "--phases", "explore,confirm",
                 "--backends", "ce", "--orders", "arrival", "--iters", "1", "--warmup", "0", "--rounds", "2",
                 "--cache", str(cache), "--autotune")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(open(tmp_path / "results.csv")))
    confirm = [(r["workload"], r["variant"], r["headline"]) for r in rows if r["phase"] == "confirm" and r["group"] == "fused"]
    assert confirm == [
        ("ag-gemm", "syncopate sm/rotate/c2", "autotune cache (sm/rotate/c2, 1.000 ms in an earlier run)"),
        ("ag-gemm", "syncopate sm/rotate/c2/direct", ""),
        ("gemm-rs", "syncopate ce/arrival", "fixed rule ce/arrival"),
    ]
    assert {r["phase"] for r in rows} == {"explore", "confirm"}
    assert "[headline: fixed rule ce/arrival]" in proc.stdout and "== summary [confirm]" in proc.stdout
    assert proc.stdout.index("== summary [confirm]") < proc.stdout.index("== summary [explore]")
    assert all(r["spread"] != "" for r in rows if r["status"] == "ok" and r["group"] != "bound")  # two rounds
    doc = json.load(open(tmp_path / "results.json"))
    assert doc["summary"]["phase"] == "confirm" and doc["meta"]["phases"] == ["explore", "confirm"]
    assert doc["meta"]["shuffle"] is True
