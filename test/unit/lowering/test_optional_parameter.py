"""A parameter passed None at launch (``if bias_ptr is not None:``, Triton
specializes it) fuses: the emitted kernel keeps the test as written, and on
simulated ranks under isolated delivery (a tile sees only the chunks it
waited for) it computes what the unfused kernel computes, with the bias and
with None. The workload reads the gathered rows in both arms of the test."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

from syncopate.tools import overlap_opt, overlap_run

WORKLOAD = Path(__file__).resolve().parents[1] / "workloads" / "optional_bias.py"


@pytest.mark.parametrize("with_bias", [True, False])
def test_a_parameter_passed_none_fuses_and_runs(tmp_path: Path, capsys, with_bias: bool):
    text = WORKLOAD.read_text()
    assert "WITH_BIAS = True\n" in text
    workload = tmp_path / "workload.py"
    workload.write_text(text.replace("WITH_BIAS = True\n", f"WITH_BIAS = {with_bias}\n"))
    emitted = tmp_path / "fused.py"
    code = overlap_run.main([str(workload), "--delivery", "isolated", "--emit", str(emitted)])
    out, err = capsys.readouterr()
    assert code == 0 and "all ranks match" in out, (out, err)
    source = emitted.read_text()
    assert "    if bias_ptr is not None:\n" in source and "    NO_BIAS = bias_ptr is None\n" in source, source
    kernel = source[source.index("def bias_kernel"):source.index("@triton.jit", source.index("def bias_kernel"))]
    assert kernel.count("syn_wait_span(") == 2, kernel  # one wait per arm


def test_the_emitted_test_follows_the_launch(tmp_path: Path, monkeypatch):
    """The emitted (unfused) kernel, run in the interpreter, takes the branch
    the launch asks for: with None it doubles, with a bias it adds."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    emitted = tmp_path / "emitted.py"
    assert overlap_opt.main([str(WORKLOAD), "-t", "triton", "-o", str(emitted)]) == 0
    spec = importlib.util.spec_from_file_location("emitted_optional_bias", emitted)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x, bias = torch.randn(5, 8), torch.randn(8)
    for given, expected in ((None, x * 2.0), (bias, x + bias)):
        out = torch.empty_like(x)
        module.bias_kernel[(1,)](x, given, out, 5, 8, x.stride(0), out.stride(0), BLOCK_M=8, BLOCK_N=8)
        torch.testing.assert_close(out, expected)

