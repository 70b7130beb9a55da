"""Seeded mutants of the all-gather GEMM (test/fuzz/input_mutants.py: rows
shifted into the next chunk, rows from a jit helper, tl.core spellings,
strides written as products, stride parameters declared the other way
round, plans that name the stride, and the classes issue 34's audit fixed by
hand: pointer tables, short grids, NaN inputs, rows in constexpr arithmetic)
on simulated ranks under the sanitizer: each must fuse and match the original
kernel, or be refused in one line.
``SYNCOPATE_FUZZ_CASES`` and ``SYNCOPATE_FUZZ_SEED`` take a larger or other
sample (``python test/fuzz/input_mutants.py N --seed S`` prints each outcome)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))

import input_mutants  # noqa: E402

SEED = int(os.environ.get("SYNCOPATE_FUZZ_SEED", "0"))
CASES = input_mutants.mutants(SEED, int(os.environ.get("SYNCOPATE_FUZZ_CASES", "70")))


@pytest.mark.parametrize("case", CASES, ids=[c.name.split(" ")[0] for c in CASES])
def test_a_mutant_fuses_correctly_or_is_refused(case):
    result = input_mutants.outcome(case)
    assert result.startswith(input_mutants.GOOD), f"{case.name}: {result}"


def test_the_sample_holds_mutants_that_fuse():
    """Some kinds fuse today (shifted rows, rows from a helper, tl.core, widened indices, strides times 1,
    negative remainders, swapped stride parameters under a plan that names
    the stride): a sample of only refusals would check nothing about the
    waits. An alias of A and a pointer table are always refused."""
    def fuses(case) -> bool:
        kinds = set(case.name.split(" ")[1].split("+"))
        return not kinds & {"alias", "ptrtable"} and ("order" not in kinds or "named" in kinds)

    fusing = [c for c in CASES[:60] if fuses(c)]
    assert len(fusing) >= 4 and all(input_mutants.outcome(c) == "correct" for c in fusing[:4])


def test_the_sample_holds_every_kind():
    kinds = {k for c in CASES for k in c.name.split(" ")[1].split("+")}
    assert kinds == set(input_mutants.KINDS), kinds
    again = input_mutants.mutants(SEED, len(CASES))
    assert [c.source for c in again] == [c.source for c in CASES]  # seeded: the same sample every run


def test_a_pointer_table_holding_the_gathered_tensor_is_refused():
    """A's block loaded again through a table holding A's address (and
    averaged with the direct load): that read would have no wait. Before
    41ef017 it fused, and only the simulated sanitizer saw the unwaited read."""
    result = input_mutants.outcome(input_mutants.first_of(input_mutants.mutant, ("ptrtable",), "ptrtable=a"))
    assert result.startswith("refused: chunk-dependency-analysis: mutant.py:") \
        and "makes a pointer from an integer" in result, result


@pytest.mark.parametrize("kinds, word", [(("nan",), "nan="), (("halves",), "halves=split"),
                                         (("short",), "short=loop"), (("short",), "short=pairs")])
def test_nan_inputs_rows_in_halves_and_short_grids_fuse(kinds, word):
    """NaN and infinite inputs match where the original's output has them
    (they were reported as poisoned data); a tile's rows as two halves
    ``tl.arange(0, BLOCK_M // 2)`` stay constexpr in the fused kernel (the
    emitter hoisted them into an int); fewer programs than row tiles, with a
    loop over the rest, wait for each tile's rows."""
    case = input_mutants.first_of(input_mutants.mutant, kinds, word)
    assert input_mutants.outcome(case) == "correct", case.name
