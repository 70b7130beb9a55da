"""A kernel parameter with a default value (``BLOCK_N: tl.constexpr = 8``)
fuses and runs on simulated ranks, whether the launch relies on the default
or passes the parameter. The lowering appends the ``syn_*`` parameters that
the runtime passes by keyword; they must go before the defaulted ones (a
parameter without a default cannot follow one with a default), and a launch
that omits the defaulted parameter must not shift them ("got multiple values
for argument 'syn_tile_order'")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from syncopate.tools import overlap_run

BASE = Path(__file__).resolve().parents[1] / "workloads" / "ifelse_gather.py"
SIGNATURE = "BLOCK_N: tl.constexpr):"
LAUNCH = ", BLOCK_N=BLOCK_N)"


@pytest.mark.parametrize("launch", ["default", "explicit"])
def test_a_kernel_with_a_default_parameter_fuses_and_runs(tmp_path: Path, capsys, launch: str):
    text = BASE.read_text()
    assert SIGNATURE in text and LAUNCH in text
    text = text.replace(SIGNATURE, "BLOCK_N: tl.constexpr = 8):")
    if launch == "default":
        text = text.replace(LAUNCH, ")")
    workload = tmp_path / "workload.py"
    workload.write_text(text)
    emitted = tmp_path / "fused.py"
    code = overlap_run.main([str(workload), "--delivery", "isolated", "--emit", str(emitted)])
    out, err = capsys.readouterr()
    assert code == 0 and "all ranks match" in out, (out, err)
    kernel = next(f for f in ast.parse(emitted.read_text()).body
                  if isinstance(f, ast.FunctionDef) and f.name == "ifelse_kernel")
    names = [a.arg for a in kernel.args.args]
    assert names[-1] == "BLOCK_N" and [ast.unparse(d) for d in kernel.args.defaults] == ["8"], names
    assert any(n.startswith("syn_") for n in names)
