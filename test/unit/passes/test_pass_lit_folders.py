"""Every pass of syncopate's registry has a lit + FileCheck folder under
test/ with both positive cases (a RUN line that must succeed) and error
cases (``RUN: not ...``), as the project's rule for passes asks; a new pass
without them fails here rather than in review."""

from __future__ import annotations

from pathlib import Path

import pytest

from syncopate.passes import PASSES

TESTS = Path(__file__).resolve().parents[2]
# the pipeline pass's folder is named for what it holds (the whole pipeline), not for its -p name
FOLDERS = {"overlap": "overlap-pipeline"}


def _run_lines(folder: Path) -> list[str]:
    lines = []
    for path in sorted(folder.iterdir()):
        if path.suffix in (".py", ".mlir"):
            lines += [line for line in path.read_text().splitlines() if line.lstrip("#/ ").startswith("RUN:")]
    return lines


@pytest.mark.parametrize("name", sorted(PASSES))
def test_every_pass_has_a_lit_folder_with_positive_and_error_cases(name):
    folder = TESTS / FOLDERS.get(name, name)
    assert folder.is_dir(), f"pass '{name}' has no lit folder {folder.relative_to(TESTS.parent)}"
    runs = _run_lines(folder)
    errors = [line for line in runs if "RUN: not " in line]
    assert errors, f"{folder.name}: no error case (a `RUN: not overlap-opt ...` line)"
    assert len(errors) < len(runs), f"{folder.name}: no positive case (a RUN line that must succeed)"
