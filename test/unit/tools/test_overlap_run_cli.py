"""overlap-run's usage errors: exit 2 with the option named, before any
world is set up (no GPU or torchrun needed)."""

import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize("args, message", [
    (["--gpu", "--ce-lanes", "0"], "--ce-lanes must be >= 1, got 0"),
    (["--gpu", "--launches", "0"], "--launches must be >= 1, got 0"),
    (["--gpu", "--spin-limit", "-1"], "--spin-limit must be >= 0, got -1"),
])
def test_usage_errors_exit_2_naming_the_option(args, message, capsys):
    """Its argument checks, in this process (they run before anything
    else); the command line's exit code is checked once below."""
    from syncopate.tools import overlap_run

    with pytest.raises(SystemExit) as exit_:
        overlap_run.parse_args(["examples/ag_gemm.py", *args])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err, err


def test_a_usage_error_exits_2_from_the_command_line():
    done = subprocess.run([sys.executable, "-m", "syncopate.tools.overlap_run", "examples/ag_gemm.py", "--gpu",
                           "--launches", "0"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--launches must be >= 1, got 0" in done.stderr, done.stderr


def test_gpu_runs_outside_torchrun_say_how_to_launch():
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "TRITON_INTERPRET")}
    done = subprocess.run([sys.executable, "-m", "syncopate.tools.overlap_run", "examples/ag_gemm.py", "--gpu",
                           "--ce-lanes", "2"], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode != 0 and "torchrun --nproc-per-node=W overlap-run" in done.stderr, done.stderr


def test_the_readme_main_job_runs_without_triton_interpret_set(tmp_path):
    """The README's main job as a user's shell runs it: no TRITON_INTERPRET
    in the environment. overlap-run sets it before Triton is first imported,
    so nothing it imports at module scope may import Triton (a module that
    did made every simulated launch fail with "Cannot call @triton.jit'd
    outside of the scope of a kernel")."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    run = subprocess.run([sys.executable, "-m", "syncopate.tools.overlap_run", "examples/ag_gemm.py", "--world", "3",
                          "--delivery", "plan"], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0 and "all ranks match" in run.stdout, run.stdout + run.stderr
    out = tmp_path / "fused_ag_gemm.py"
    emit = subprocess.run([sys.executable, "-m", "syncopate.tools.overlap_opt", "examples/ag_gemm.py", "--plan",
                           "all-gather{tensor=a_ptr dim=0 world=3}", "-p", "overlap", "-t", "triton", "-o", str(out)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert emit.returncode == 0 and "syn_wait_span(" in out.read_text(), emit.stderr
