"""The fused all-gather workloads on real GPUs (copy-engine backend), one
process per GPU under torchrun; each rank checks three back-to-back launches
against the unfused reference. Skipped only with fewer than 2 CUDA GPUs.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
GPUS = torch.cuda.device_count() if torch.cuda.is_available() else 0

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(GPUS < 2, reason="needs at least 2 CUDA GPUs"),
]


def _torchrun(workload: str, pipeline: str, world: int) -> subprocess.CompletedProcess:
    env = dict(os.environ, NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1", NVSHMEM_DISABLE_NVLS="1")
    env.pop("TRITON_INTERPRET", None)
    torchrun = shutil.which("torchrun") or "torchrun"
    cmd = [torchrun, f"--nproc-per-node={world}", "-m", "syncopate.tools.overlap_run",
           str(ROOT / "examples" / workload), "--gpu", "-p", pipeline]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.mark.parametrize("world", sorted({2, 4} & set(range(2, GPUS + 1))))
@pytest.mark.parametrize("workload,pipeline", [
    ("ag_gemm.py", "overlap"),
    ("ag_gemm.py", "overlap{order=rotate}"),
    ("ag_gemm_k.py", "overlap"),
    ("attention_ag_kv.py", "overlap"),
])
def test_fused_all_gather_on_gpus(workload: str, pipeline: str, world: int):
    done = _torchrun(workload, pipeline, world)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # ranks print concurrently, so their lines may run together
    ranks = re.findall(r"\[gpu [^\]]*\] rank (\d+)/(\d+): max error [^:]*: ok", done.stdout)
    assert sorted(int(r) for r, _ in ranks) == list(range(world)), done.stdout
    assert {int(w) for _, w in ranks} == {world}
    assert "MISMATCH" not in done.stdout
