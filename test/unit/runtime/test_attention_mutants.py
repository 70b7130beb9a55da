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


def test_pointers_advanced_each_iteration_are_refused_naming_the_load():
    """The tutorial's ``k_ptrs += BLOCK_N * stride_kn``: insert-signals
    waits for each iteration's block (``chunk.wait_span_loop``), but the
    address verifier cannot prove its start, ``(iv - lb) // step`` blocks
    on, and refuses the load at its line. The refusal is needed as it
    stands: a verifier that takes that division as exact accepts pointers
    that start a block or more past the first row, whose last iteration
    waits for rows past the plan's extent (the simulated ranks' sanitizer
    reports such a wait). K's strides declared the other way round, the
    other class it let through, are now refused at launch
    (runtime/abi._check_strides)."""
    result = input_mutants.outcome(_case(("advance",)))
    assert result.startswith("refused: verify-addresses: mutant.py:") and "uncovered" in result, result
