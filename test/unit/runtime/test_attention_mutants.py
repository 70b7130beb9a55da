"""Seeded mutants of the K/V all-gather attention kernel's loads
(test/fuzz/attention_mutants.py: shifted blocks, rows from a jit helper,
pointers advanced each iteration, tl.core spellings, strides as products
or declared the other way round, plans that name the stride, widened rows,
K loaded transposed) on simulated ranks under the sanitizer: each must fuse
and match the original kernel, or be refused in one line. A wait that does
not cover the rows an iteration reads lets a tile read a chunk before it
arrives: a sanitizer violation or a wrong result, which fails here.
``SYNCOPATE_FUZZ_ATTENTION_CASES`` and ``SYNCOPATE_FUZZ_SEED`` take a larger
or other sample (``python test/fuzz/attention_mutants.py N --seed S`` prints
each outcome)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))

import attention_mutants  # noqa: E402
import input_mutants  # noqa: E402

SEED = int(os.environ.get("SYNCOPATE_FUZZ_SEED", "0"))
CASES = attention_mutants.mutants(SEED, int(os.environ.get("SYNCOPATE_FUZZ_ATTENTION_CASES", "30")))


@pytest.mark.parametrize("case", CASES, ids=[c.name.split(" ")[0] for c in CASES])
def test_an_attention_mutant_fuses_correctly_or_is_refused(case):
    result = input_mutants.outcome(case)
    assert result.startswith(input_mutants.GOOD), f"{case.name}: {result}"


def _case(kinds: tuple[str, ...]) -> input_mutants.Mutant:
    """The generator's first mutant of exactly ``kinds``."""
    return input_mutants.first_of(attention_mutants.mutant, kinds)


@pytest.mark.parametrize("kinds", [("shift",), ("helper", "widen"), ("trans",), ("core", "named", "product")])
def test_spellings_of_the_block_loads_fuse(kinds):
    """Loads whose rows are computed per iteration, however spelt: the
    waits follow the rows each iteration reads, and the result is the
    original kernel's on every rank."""
    assert input_mutants.outcome(_case(kinds)) == "correct"


def test_pointers_advanced_each_iteration_fuse():
    """The tutorial's ``k_ptrs += BLOCK_N * stride_kn``: insert-signals
    waits for each iteration's block (``chunk.wait_span_loop``, its start
    ``(iv - lb) // step`` blocks on), which the address verifier takes as
    exact (``iv - lb`` is a multiple of the step), and the analysis proves
    the walk's start below the extent in the loop's last iteration."""
    assert input_mutants.outcome(_case(("advance",))) == "correct"


def test_advanced_pointers_that_start_rows_on_are_refused_naming_the_load():
    """Pointers that start some rows past the first block can start past
    the plan's extent in the last iteration: a wait there meets no chunk
    (its load is masked, the wait is not), so the analysis refuses them at
    the load's line, with the rewrite."""
    case = _case(("advance", "shift"))
    result = input_mutants.outcome(case)
    assert result.startswith("refused: chunk-dependency-analysis: mutant.py:"), (case.name, result)
    assert "not provably below the plan's extent N_KV" in result and "offs_n = tl.arange(0, BLOCK_N)" in result, result
