"""overlap-bench --workload tp-layer from the command line (--cpu, one gloo
rank in a subprocess): the table lists the three rows for every token count
and mode, torch TP and syncopate ops timed, async-TP not applicable on CPU."""

import os
import subprocess
import sys


def _bench(*args):
    return subprocess.run([sys.executable, "-m", "syncopate.tools.overlap_bench", "--workload", "tp-layer", *args],
                          capture_output=True, text=True, timeout=600, env=os.environ)


def test_cpu_run_prints_checked_rows():
    out = _bench("--cpu", "--warmup", "0", "--iters", "1")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("tp-layer (Llama-3-70B-shaped decoder layer, SP+TP) W=1 on cpu")
    rows = [line.split() for line in lines[2:]]
    assert len(rows) == 3 * 2 * 2  # rows x token counts x modes
    for cells in rows:
        if cells[0] == "async-TP":
            assert "n/a:" in cells
        else:
            assert float(cells[-1 if cells[-1].endswith("x") else -2].rstrip("x")) > 0
    assert "MISMATCH" not in out.stdout


def test_list_shapes_runs_nothing():
    out = _bench("--cpu", "--list-shapes")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ("tp-layer: hidden 64, 4 query / 2 KV heads of 16, FFN 128; tokens 32, 64; "
                                  "forward and forward+backward")
