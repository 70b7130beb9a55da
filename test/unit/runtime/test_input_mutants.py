"""Seeded mutants of the all-gather GEMM (test/fuzz/input_mutants.py: rows
shifted into the next chunk, rows from a jit helper, tl.core spellings,
strides written as products, stride parameters declared the other way
round, plans that name the stride) on simulated ranks under the sanitizer: each
must fuse and match the original kernel, or be refused in one line.
``SYNCOPATE_FUZZ_CASES`` and ``SYNCOPATE_FUZZ_SEED`` take a larger or other
sample (``python test/fuzz/input_mutants.py N --seed S`` prints each outcome)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))

import input_mutants  # noqa: E402

CASES = input_mutants.mutants(int(os.environ.get("SYNCOPATE_FUZZ_SEED", "0")),
                              int(os.environ.get("SYNCOPATE_FUZZ_CASES", "110")))


@pytest.mark.parametrize("case", CASES, ids=[c.name.split(" ")[0] for c in CASES])
def test_a_mutant_fuses_correctly_or_is_refused(case):
    result = input_mutants.outcome(case)
    assert result.startswith(input_mutants.GOOD), f"{case.name}: {result}"


def test_the_sample_holds_mutants_that_fuse():
    """Some kinds fuse today (shifted rows, rows from a helper, tl.core, widened indices, strides times 1,
    negative remainders, swapped stride parameters under a plan that names
    the stride): a sample of only refusals would check nothing about the
    waits. An alias of A is always refused."""
    def fuses(case) -> bool:
        kinds = set(case.name.split(" ")[1].split("+"))
        return "alias" not in kinds and ("order" not in kinds or "named" in kinds)

    fusing = [c for c in CASES[:60] if fuses(c)]
    assert len(fusing) >= 4 and all(input_mutants.outcome(c) == "correct" for c in fusing[:4])
