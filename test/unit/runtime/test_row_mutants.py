"""Seeded mutants of a row kernel that reads a neighbouring row
(test/fuzz/row_mutants.py: the neighbour's offset spelt as the pointer
advanced then the stride added, as the column count added, as the index,
through a jit helper, or as 2-D blocks of rows) on simulated ranks under
the sanitizer: each must fuse and match the original kernel, or be refused
in one line. ``SYNCOPATE_FUZZ_ROW_CASES`` and ``SYNCOPATE_FUZZ_SEED`` take a
larger or other sample (``python test/fuzz/row_mutants.py N --seed S``
prints each outcome)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))

import input_mutants  # noqa: E402
import row_mutants  # noqa: E402

CASES = row_mutants.mutants(int(os.environ.get("SYNCOPATE_FUZZ_SEED", "0")),
                            int(os.environ.get("SYNCOPATE_FUZZ_ROW_CASES", "30")))


@pytest.mark.parametrize("case", CASES, ids=[c.name.split(" ")[0] for c in CASES])
def test_a_row_mutant_fuses_correctly_or_is_refused(case):
    result = input_mutants.outcome(case)
    assert result.startswith(input_mutants.GOOD), f"{case.name}: {result}"


def _case(kind: str, d: int, rows: int = 12) -> input_mutants.Mutant:
    """One mutant of ``kind`` reading neighbour ``d`` (the generator's spelling, fixed choices)."""
    body, grid = row_mutants._body(kind, d)
    source = row_mutants.TEMPLATE.format(helper=row_mutants.HELPER if kind == "helper" else "", body=body,
                                         rows=rows, grid=grid)
    return input_mutants.Mutant(f"{kind} d={d}", source, 2, "overlap{order=arrival}", "late")


@pytest.mark.parametrize("kind, d", [("advance", 1), ("advance", -1), ("index", 2), ("tile", 1)])
def test_the_neighbours_row_is_waited_for(kind, d):
    """Spellings that fuse: the wait follows the neighbour (the sanitizer
    checks every read against the chunks its tile waited for), and stops at
    the mask's bound where the neighbour is past the last row."""
    assert input_mutants.outcome(_case(kind, d)) == "correct"


def test_the_column_count_added_as_a_row_is_refused_at_launch():
    """`X + n_cols + cols` over rows of n_cols columns reads the next row:
    the analysis takes `n_cols` for a column offset only under a condition
    the launch checks, and this launch breaks it."""
    result = input_mutants.outcome(_case("ncols", 1))
    assert result.startswith("refused: rank 0:") and "(n_cols) + (n_cols) <= stride_x" in result, result


def test_the_sample_holds_every_kind():
    kinds = {c.name.split(" ")[1] for c in CASES}
    assert kinds == set(row_mutants.KINDS), kinds
    again = row_mutants.mutants(int(os.environ.get("SYNCOPATE_FUZZ_SEED", "0")), len(CASES))
    assert [c.source for c in again] == [c.source for c in CASES]  # a failing case is reproducible from its seed
