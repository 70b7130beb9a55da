"""The fused workloads on real GPUs, one process per GPU under torchrun.

test/e2e/gpu_matrix.py checks every shipped example x backend (ce, sm,
nccl) x tile order against the unfused reference, then 2000 back-to-back
launches, CUDA-graph replays and the debug spin limit; here each of its
``MATRIX`` lines must say ok on every rank. The overlap-run CLI is checked
too (a run, and the world-size error). Skipped only with fewer than 2 GPUs.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
GPUS = torch.cuda.device_count() if torch.cuda.is_available() else 0
WORLDS = sorted({2, 4} & set(range(2, GPUS + 1)))

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(GPUS < 2, reason="needs at least 2 CUDA GPUs"),
]

sys.path.insert(0, str(ROOT / "test" / "e2e"))


def _env() -> dict:
    env = dict(os.environ, NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1", NVSHMEM_DISABLE_NVLS="1")
    env.pop("TRITON_INTERPRET", None)
    return env


def _torchrun(world: int, *args: str, timeout: int = 420) -> subprocess.CompletedProcess:
    """One torchrun job; ``--standalone`` rendezvous on a free port, so a
    port an earlier job still holds cannot stall it. Its lines are echoed
    as they come (``pytest -s`` shows how far a slow job got) and returned
    as ``stdout`` (stderr merged in); a job past ``timeout`` is killed and
    fails the test with the end of what it printed."""
    torchrun = shutil.which("torchrun") or "torchrun"
    cmd = [torchrun, "--standalone", f"--nproc-per-node={world}", *args]
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                            start_new_session=True)
    lines: list[str] = []

    def echo() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            print(f"  [torchrun {time.monotonic() - start:5.0f}s] {line}", end="", flush=True)

    start = time.monotonic()
    reader = threading.Thread(target=echo, daemon=True)
    reader.start()
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.terminate()  # torchrun stops its workers, which run in sessions of their own
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        reader.join(timeout=5)
        pytest.fail(f"{' '.join(cmd[1:])} did not finish in {timeout} s; it printed:\n{''.join(lines)[-4000:]}")
    reader.join()
    out = "".join(lines)
    return subprocess.CompletedProcess(cmd, code, stdout=out, stderr=out)


@pytest.mark.parametrize("world", WORLDS)
def test_every_example_backend_and_order(world: int):
    from gpu_matrix import CASES, LANE_CASES, corpus_paths

    done = _torchrun(world, str(ROOT / "test" / "e2e" / "gpu_matrix.py"))
    lines = re.findall(r"MATRIX (.*?) rank (\d+)/(\d+): (ok|FAIL[^\n]*)", done.stdout)
    failed = [line for line in lines if line[3] != "ok"]
    assert not failed, "\n".join(" ".join(f) for f in failed) + done.stderr[-3000:]
    cases = {case for case, *_ in lines}
    # + the fused corpus kernels, 2 x launches, 4 x graph, debug, 2 x rs, 6 x back-to-back
    assert len(cases) == len(CASES) + len(LANE_CASES) + len(corpus_paths()) + 15, sorted(cases)
    assert len(lines) == len(cases) * world
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("world", WORLDS[:1])
def test_overlap_run_cli_on_gpus(world: int):
    done = _torchrun(world, "-m", "syncopate.tools.overlap_run", str(ROOT / "examples" / "ag_gemm.py"), "--gpu",
                     "--plan", "all-gather{tensor=a_ptr dim=0}", "-p", "overlap{backend=sm}", "--sms", "2")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ranks = re.findall(r"\[gpu [^\]]*\] rank (\d+)/(\d+): max error [^:]*: ok", done.stdout)
    assert sorted(int(r) for r, _ in ranks) == list(range(world)), done.stdout


@pytest.mark.parametrize("world", WORLDS[:1])
def test_world_size_mismatch_is_reported(world: int):
    done = _torchrun(world, "-m", "syncopate.tools.overlap_run", str(ROOT / "examples" / "ag_gemm.py"), "--gpu",
                     "--plan", f"all-gather{{tensor=a_ptr dim=0 world={world + 1}}}")
    assert done.returncode != 0
    # checked before the GPU world is built (runtime/harness/check.py), on every rank
    assert f"plan @ag is for world={world + 1}, but it runs on {world} GPUs" in done.stderr + done.stdout


@pytest.mark.skipif(GPUS < 4, reason="a 2 x 2 mesh needs 4 CUDA GPUs")
def test_ops_fuse_on_a_tensor_parallel_dimension_of_a_mesh():
    """TP inside a DP x TP mesh: each TP group's ops take the fused path
    (peers named by group rank) and return exact gathers and close products."""
    done = _torchrun(4, str(ROOT / "test" / "e2e" / "mesh_tp.py"), timeout=300)
    lines = re.findall(r"MESH rank (\d+): (ok|FAIL[^\n]*)", done.stdout)
    assert sorted(int(r) for r, _ in lines) == [0, 1, 2, 3], done.stdout[-3000:]
    assert all(status == "ok" for _, status in lines), "\n".join(s for _, s in lines)


@pytest.mark.parametrize("world", WORLDS)
def test_ported_llama_trains_as_torch_tp_on_gpus(world: int):
    """The Llama-style model ported to syncopate.tp trains as torch TP does
    (losses, first gradients, final weights within bf16 tolerances) with
    every op call on the fused path (test/e2e/llama_tp.py)."""
    done = _torchrun(world, str(ROOT / "test" / "e2e" / "llama_tp.py"), timeout=400)
    lines = re.findall(r"LLAMA rank (\d+): ok", done.stdout)
    assert done.returncode == 0 and sorted(int(r) for r in lines) == list(range(world)), \
        done.stdout[-3000:] + done.stderr[-3000:]
