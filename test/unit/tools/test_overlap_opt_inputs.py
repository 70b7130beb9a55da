"""overlap-opt on inputs nested past what Python's own parser can hold: one
``overlap-opt: error:`` line naming the file, line and column, never a
traceback. IR text is tried as Python first (to refuse a kernel given a
``.mlir`` name), and a few thousand open brackets overflow that parser's
stack (a MemoryError, not a SyntaxError), so the nesting bound is checked
before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from syncopate.tools import overlap_opt

ROOT = Path(__file__).resolve().parents[3]


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = overlap_opt.main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize("opening, closing", [("(", ")"), ("[", "]"), ("{", "}")])
def test_ir_nested_thousands_deep_is_one_error_line(tmp_path: Path, capsys, opening, closing):
    path = tmp_path / "nest.mlir"
    path.write_text("builtin.module {" + opening * 3000 + closing * 3000 + "}")
    code, err = _run(capsys, str(path))
    assert code == 1 and err.startswith(f"overlap-opt: error: {path}:1:80: brackets nest more than 64 deep"), err
    assert len(err.strip().splitlines()) == 1, err
    code, err = _run(capsys, str(ROOT / "examples" / "ag_gemm.py"), "--plan", str(path))
    assert code == 1 and err.startswith(f"overlap-opt: error: --plan: cannot parse plan file {path}: {path}:1:80: "
                                        "brackets nest more than 64 deep"), err


def test_python_nested_thousands_deep_is_one_error_line(tmp_path: Path, capsys):
    path = tmp_path / "nest.py"
    path.write_text("x = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    code, err = _run(capsys, str(path))
    assert code == 1 and err.strip() == f"overlap-opt: error: {path}:1: Python syntax error: too many nested " \
                                        "parentheses", err
