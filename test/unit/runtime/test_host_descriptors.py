"""Kernels taking tensor descriptors made on the host (``TensorDescriptor``
arguments): they fuse a plan on another tensor, and a plan on a descriptor
is refused with the rewrite that fuses, never compiled without its waits."""

from __future__ import annotations

from pathlib import Path

from syncopate.tools import overlap_run

WORKLOAD = Path(__file__).resolve().parents[1] / "workloads" / "host_descriptor_gemm_rs.py"


def test_host_descriptors_fuse_a_plan_on_another_tensor(capsys):
    code = overlap_run.main([str(WORKLOAD), "--world", "2", "--delivery", "isolated"])
    out, err = capsys.readouterr()
    assert code == 0 and "all ranks match the reference" in out, (out, err)


def test_a_plan_on_a_host_descriptor_is_refused(capsys):
    code = overlap_run.main([str(WORKLOAD), "--world", "2", "--plan", "all-gather{tensor=a_desc dim=0}"])
    out, err = capsys.readouterr()
    assert code != 0
    line = next(line for line in err.splitlines() if "a_desc" in line)
    assert "host_descriptor_gemm_rs.py:27:" in line, line
    assert "tensor descriptor made on the host" in line and "tl.make_tensor_descriptor(" in line, line
    assert "Traceback" not in err
