"""Every pass overlap-opt registers (this project's and the xDSL passes it
offers on tile IR) has a lit + FileCheck folder under test/ with positive
cases (a RUN line that must succeed), error cases (``RUN: not ...``) and
CHECK lines, as the project's rule for passes asks; a new pass without them
fails here rather than in review."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from syncopate.passes import get_all_passes

TESTS = Path(__file__).resolve().parents[2]
# the pipeline pass's folder is named for what it holds (the whole pipeline), not for its -p name
FOLDERS = {"overlap": "overlap-pipeline"}


def _lit_files(folder: Path) -> list[Path]:
    return [path for path in sorted(folder.iterdir()) if path.suffix in (".py", ".mlir")]


def _run_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.lstrip("#/ ").startswith("RUN:")]


def _has_checks(path: Path) -> bool:
    """A FileCheck directive of CHECK or of a prefix its RUN lines name
    (``--check-prefix=OPTION`` makes ``OPTION:`` lines directives)."""
    text = path.read_text()
    prefixes = {"CHECK"} | {p for names in re.findall(r"--check-prefix(?:es)?[= ](\S+)", text) for p in names.split(",")}
    lines = [line.lstrip("#/ ") for line in text.splitlines()]
    return any(line.startswith((f"{p}:", f"{p}-")) for line in lines for p in prefixes)


def missing_cases(folder: Path) -> list[str]:
    """What the folder lacks of a pass's lit tests ([] when complete)."""
    if not folder.is_dir():
        return ["the folder"]
    files = _lit_files(folder)
    runs = [line for path in files for line in _run_lines(path)]
    errors = [line for line in runs if "RUN: not " in line]
    gaps = []
    if not errors:
        gaps.append("an error case (a `RUN: not overlap-opt ...` line)")
    if len(errors) == len(runs):
        gaps.append("a positive case (a RUN line that must succeed)")
    if not any(_run_lines(path) and _has_checks(path) for path in files):
        gaps.append("a test file with both RUN and CHECK lines")
    return gaps


@pytest.mark.parametrize("name", sorted(get_all_passes()))
def test_every_registered_pass_has_a_lit_folder_with_positive_and_error_cases(name):
    folder = TESTS / FOLDERS.get(name, name)
    assert missing_cases(folder) == [], f"pass '{name}': {folder.relative_to(TESTS.parent)} lacks"


def test_a_folder_without_checks_or_error_cases_is_refused(tmp_path):
    """The rule above can fail: an empty folder, or RUN lines that check
    nothing, are reported."""
    assert missing_cases(tmp_path / "absent") == ["the folder"]
    (tmp_path / "only.mlir").write_text("// RUN: overlap-opt %s\n")
    assert missing_cases(tmp_path) == ["an error case (a `RUN: not overlap-opt ...` line)",
                                       "a test file with both RUN and CHECK lines"]
