"""overlap-run on misused workloads and options: one ``overlap-run: error:``
line naming the workload function or the option and the problem, exit 1
(2 for usage), never a traceback and never "the fused kernel differs".

Each case edits a small workload (workloads/ifelse_gather.py) one way."""

from __future__ import annotations

from pathlib import Path

import pytest

from syncopate.runtime.harness.check import compile_workload, run_simulated
from syncopate.runtime.sim.delivery import SimulationError
from syncopate.runtime.harness.workload import load_workload
from syncopate.tools import overlap_run

BASE = Path(__file__).resolve().parents[1] / "workloads" / "ifelse_gather.py"
ROOT = Path(__file__).resolve().parents[3]


def _variant(tmp_path: Path, *edits: tuple[str, str]) -> str:
    text = BASE.read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "workload.py"
    path.write_text(text)
    return str(path)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = overlap_run.main(list(argv))
    except SystemExit as done:  # argparse usage errors
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


MAKE = "    return {\"x\": torch.randn(size, N_DIM, generator=g)}"
LAUNCH_RETURN = "    return out\n"

CASES = {
    "make_inputs raises": ([(MAKE, "    raise ValueError('no data for this rank')")],
                           "make_inputs(rank=0, world=2, seed=0) raised ValueError: no data for this rank"),
    "launch raises": ([(LAUNCH_RETURN, "    raise RuntimeError('out of memory')\n")],
                      "launch(KERNEL, ...) raised RuntimeError: out of memory"),
    "extra input key": ([(MAKE, MAKE[:-1] + ", \"bias\": 1}")],
                        "returned keys ['bias', 'x'], which do not fit launch(kernel, x): "
                        "got an unexpected keyword argument 'bias'"),
    "missing input key": ([(MAKE, "    return {}")], "missing a required argument: 'x'"),
    "make_inputs returns a list": ([(MAKE, "    return [1]")], "make_inputs(rank=0, world=2, seed=0) returned [1]"),
    "launch returns None": ([(LAUNCH_RETURN, "    return None\n")], "launch(KERNEL, ...) returned None"),
    "launch returns a string": ([(LAUNCH_RETURN, "    return [out, 'done']\n")], "launch returned list holding str"),
    "PLANS is None": ([("PLANS = [\"all-gather{tensor=x_ptr dim=0}\"]", "PLANS = None")],
                      "PLANS must be a list of plan specs (strings) or a function of the world returning one, got None"),
    "PLANS raises": ([("PLANS = [\"all-gather{tensor=x_ptr dim=0}\"]", "def PLANS(world):\n    return 1 // 0")],
                     "PLANS(2) raised ZeroDivisionError"),
    "no COLLECTIVES entry": ([("COLLECTIVES = {\"x_ptr\": \"x\"}", "COLLECTIVES = {\"y_ptr\": \"x\"}")],
                             "COLLECTIVES has no entry for 'x_ptr'"),
    "COLLECTIVES names no input": ([("COLLECTIVES = {\"x_ptr\": \"x\"}", "COLLECTIVES = {\"x_ptr\": \"xs\"}")],
                                   "COLLECTIVES maps 'x_ptr' to 'xs', which make_inputs(rank=0, ...) does not return"),
    "shards cut unlike the plan": ([("    _, size = shard_bounds(M_DIM, world, rank)", "    size = 10 if rank == 0 else 30")],
                                   "rank 0's input 'x' has 10 rows along dim 0 (rows [0, 10) of the gathered tensor), "
                                   "but plan @ag gives rank 0 20 rows [0, 20)"),
    "interpreter error in the kernel": ([("BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)", "BLOCK_M=BLOCK_M, BLOCK_N=6)")],
                                        "launch(KERNEL, ...) raised in Triton's interpreter: "),
}


@pytest.mark.parametrize("case", CASES)
def test_workload_misuse_is_one_line_naming_the_function(case: str, tmp_path: Path, capsys):
    edits, message = CASES[case]
    code, out, err = _run(capsys, _variant(tmp_path, *edits))
    assert code == 1, (out, err)
    assert err.startswith("overlap-run: error: ") and message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err + out, err
    assert "differs" not in out


@pytest.mark.parametrize("args, message", [
    (["--plan", "all-gather{tensor=x_ptr dim=0 world=4}"],
     "plan @ag is for world=4, but it runs on 2 simulated ranks"),
    (["--plan", "all-gather{tensor=x_ptr dim=0 size=80}"],
     "plan @ag covers rows [0, 80) of 'x_ptr' along dim 0 on rank 0, but the launch's 'x_ptr' has 40"),
    (["-p", "chunk-dependency-analysis"], "pipeline 'chunk-dependency-analysis' leaves plan(s) @ag without waits"),
    (["-p", ""], "pipeline '' leaves plan(s) @ag without waits"),
])
def test_plans_that_do_not_fit_the_run_are_errors_not_mismatches(args, message, capsys):
    code, out, err = _run(capsys, str(BASE), *args)
    assert code == 1 and err.startswith("overlap-run: error: ") and message in err, (out, err)
    assert "differs" not in out and "Traceback" not in err


def test_a_world_larger_than_the_rows_is_an_error(tmp_path: Path, capsys):
    path = _variant(tmp_path, ("M_DIM, N_DIM = 40, 8", "M_DIM, N_DIM = 3, 8"))
    code, out, err = _run(capsys, path, "--world", "4")
    assert code == 1 and "gives rank 0 no rows of 'x_ptr' along dim 0 (extent 3, world 4)" in err, (out, err)


def test_emit_to_a_directory_is_an_error(tmp_path: Path, capsys):
    code, _, err = _run(capsys, str(BASE), "--emit", str(tmp_path))
    assert code == 1 and err.startswith(f"overlap-run: error: {tmp_path}: Is a directory"), err


def test_a_seed_that_overflows_is_a_usage_error(capsys):
    code, _, err = _run(capsys, str(BASE), "--seed", str(2**64))
    assert code == 2 and "--seed must be between 0 and 2147483647" in err, err


@pytest.mark.parametrize("pipeline, message", [
    ("no-such-pass", "Unrecognized passes: ['no-such-pass']"),
    ("overlap{", "Expected argument name here (column 9)"),
    ("overlap{bogus=1}", 'Provided arguments ["bogus"] not found'),
    ("overlap{order=bogus}", "overlap: unknown order 'bogus'"),
])
def test_a_pipeline_that_does_not_parse_is_a_usage_error(capsys, pipeline, message):
    code, _, err = _run(capsys, str(BASE), "-p", pipeline)
    assert code == 2 and f"overlap-run: error: pipeline '{pipeline}': " in err and message in err, err
    assert "Traceback" not in err and "internal error" not in err, err


def test_all_to_all_splits_unlike_the_send_buffers_name_the_rank(capsys):
    plan = "all-to-all{tensor=x_ptr dim=0 splits=1,1,1,1}"
    code, out, err = _run(capsys, str(ROOT / "examples" / "a2a_grouped_gemm.py"), "--plan", plan)
    assert code == 1 and "rank 0's all-to-all send buffer has" in err and "the plan's splits say 2" in err, (out, err)


def test_an_all_to_all_plan_without_splits_says_splits_are_missing(capsys):
    """Without splits= the template cuts the tensor's size symbolically
    (M/2, M - M/2); running it used to end in "internal error ... int('M/2')"."""
    code, out, err = _run(capsys, str(ROOT / "examples" / "a2a_grouped_gemm.py"), "--plan", "all-to-all{tensor=x_ptr dim=0}")
    assert code == 1 and "overlap-run: error: all-to-all plan @a2a needs splits=: " in err, (out, err)
    assert "(M/2, M - M/2, M/2, M - M/2)" in err and "give splits= with W = 2 or W*W = 4 integers" in err, err
    assert "internal error" not in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("name, suffix", [("workload", "no suffix"), ("workload.txt", ".txt")])
def test_a_workload_file_without_a_py_name_is_refused_by_name(tmp_path: Path, capsys, name, suffix):
    """importlib finds no loader for such a name: it used to end in an internal AssertionError."""
    path = tmp_path / name
    path.write_text(BASE.read_text())
    code, out, err = _run(capsys, str(path))
    assert code == 1 and err == (f"overlap-run: error: {path}: a workload file is a Python module and its name "
                                 f"must end in .py (got {suffix})\n"), (out, err)


def test_every_returned_tensor_is_compared(tmp_path: Path, capsys):
    """A launch returning (out, out + 1): both match with waits; without
    waits, late delivery makes them differ."""
    path = _variant(tmp_path, (LAUNCH_RETURN, "    return out, out + 1\n"))
    code, out, _ = _run(capsys, path, "--delivery", "late")
    assert code == 0 and "all ranks match" in out, out
    workload = load_workload(path)
    program = compile_workload(workload, 2, "overlap{waits=false}")
    assert not all(r.ok for r in run_simulated(workload, 2, "late", program=program, sanitize=False))
    with pytest.raises(SimulationError, match="without waiting for it"):  # the address sanitizer sees it first
        run_simulated(workload, 2, "late", program=program)


def test_a_pipeline_without_waits_is_refused(capsys):
    code, out, err = _run(capsys, str(BASE), "-p", "overlap{waits=false}")
    assert code == 1 and "leaves plan(s) @ag without waits or signals" in err and "differs" not in out, err


def test_a_simulation_failure_prints_a_short_summary(monkeypatch, capsys):
    """A failure listing thousands of chunks shows the first few lines and a
    one-line summary per delivery order."""
    from syncopate.runtime.harness import check
    from syncopate.runtime.sim.delivery import SimulationError

    def fail(*_args, **_kwargs):
        raise SimulationError("produced chunks never announced complete:\n" + "\n".join(f"  chunk {i}" for i in range(5000)))

    monkeypatch.setattr(check, "run_simulated", fail)
    code, out, err = _run(capsys, str(BASE), "--delivery", "all")
    assert code == 1 and not err, err
    assert len(out.splitlines()) < 60, out[:2000]
    assert "(+4995 more)" in out and out.rstrip().endswith(
        "(plan: produced chunks never announced complete; reversed: produced chunks never announced complete; "
        "random: produced chunks never announced complete; late: produced chunks never announced complete; "
        "isolated: produced chunks never announced complete)"), out[-500:]


def test_an_epilogue_reduction_in_the_wrong_tile_order_is_refused_not_reported_as_a_mismatch(capsys):
    """The order would deadlock on GPUs, which refuse the launch; the simulated ranks refuse it the same way,
    in one error line, instead of "FAILED: the fused kernel differs"."""
    code, out, err = _run(capsys, str(ROOT / "examples" / "gemm_rs_tma.py"), "--delivery", "all",
                          "-p", "overlap{reduce=epilogue order=none}")
    assert code == 1 and err.startswith("overlap-run: error: rank 0: @gemm_rs_tma_kernel reduces in its epilogue "
                                        "but runs a tile of rank 0's own rows before tiles of other ranks' rows"), err
    assert len(err.strip().splitlines()) == 1 and "differs" not in out and "FAIL" not in out, out


def test_reduce_scatter_rows_no_tile_writes_are_refused_not_reported_as_poison(tmp_path: Path, capsys):
    """A GEMM-RS launched one row tile short (its C zeroed first, so the plain kernel is valid): rows 48 and 49
    are written by no tile, and would be sent with whatever the buffer held. It used to end as "max error nan
    (poisoned data reached the output)"."""
    text = (ROOT / "examples" / "gemm_rs.py").read_text()
    edits = (("c = torch.empty(", "c = torch.zeros("),
             ("grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))",
              "grid = (triton.cdiv(M, BLOCK_M) - 1, triton.cdiv(N, BLOCK_N))"))
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "short_grid.py"
    path.write_text(text)
    code, out, err = _run(capsys, str(path), "--world", "2")
    assert code == 1 and err.startswith("overlap-run: error: rank 0: rows [48, 50) of 'c_ptr' in chunk 2 of @rs "
                                        "(rows [25, 50), for rank 1) are written by no tile of this launch"), err
    assert "poison" not in out and "differs" not in out, out
