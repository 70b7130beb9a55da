"""Seeded mutants of the reduce-scatter GEMM's store (test/fuzz/store_mutants.py:
tiles rotated across programs, negative remainders, rows from a jit helper, a
tile pointer advanced to the tile's first row, tl.core spellings, strides as
products or declared the other way round, plans that name the stride, widened
rows, persistent tile loops, and the classes issue 34's audit fixed by hand:
row blocks read from a table, tile loops whose step is not the program count,
pointer tables, short grids, NaN inputs, rows in constexpr arithmetic) on
simulated ranks under the sanitizer: each must fuse and match the original
kernel, or be refused in one line. A signal that
announces rows before they are stored, or other rows than were stored, makes an
owner sum a partial that is not there: a wrong result, which fails here.
``SYNCOPATE_FUZZ_STORE_CASES`` and ``SYNCOPATE_FUZZ_SEED`` take a larger or
other sample (``python test/fuzz/store_mutants.py N --seed S`` prints each
outcome)."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))

import input_mutants  # noqa: E402
import store_mutants  # noqa: E402

SEED = int(os.environ.get("SYNCOPATE_FUZZ_SEED", "0"))
CASES = store_mutants.mutants(SEED, int(os.environ.get("SYNCOPATE_FUZZ_STORE_CASES", "30")))


@pytest.mark.parametrize("case", CASES, ids=[c.name.split(" ")[0] for c in CASES])
def test_a_store_mutant_fuses_correctly_or_is_refused(case):
    result = input_mutants.outcome(case)
    assert result.startswith(input_mutants.GOOD), f"{case.name}: {result}"


def _case(kinds: tuple[str, ...], order: str) -> input_mutants.Mutant:
    """The generator's mutant of exactly ``kinds`` (its other choices drawn), under tile order ``order``."""
    case = input_mutants.first_of(store_mutants.mutant, kinds)
    return input_mutants.Mutant(case.name, case.source, case.world, f"overlap{{order={order}}}", case.delivery)


@pytest.mark.parametrize("kinds", [("rotate",), ("advance", "widen"), ("helper", "negmod")])
def test_stores_whose_rows_move_signal_the_rows_they_wrote(kinds):
    """Spellings that fuse under the departure order (tile-reorder moves the
    tiles whose rows other ranks own first): correct on every rank."""
    assert input_mutants.outcome(_case(kinds, "arrival")) == "correct"


@pytest.mark.parametrize("order", ["none", "rotate", "arrival"])
def test_a_persistent_tile_loop_fuses_under_every_tile_order(order):
    """Public persistent GEMMs' loop (``tile // num_n``, ``tile % num_n`` with
    ``num_n = tl.cdiv(N, BLOCK_N)``): without a reorder the column tile is a
    remainder by that count, which the address verifier bounds by recording
    N >= 1 (it refused the kernel before)."""
    assert input_mutants.outcome(_case(("persistent",), order)) == "correct"


def test_the_sample_holds_every_kind():
    kinds = {k for c in CASES for k in c.name.split(" ")[1].split("+")}
    assert kinds == set(store_mutants.KINDS), kinds
    again = store_mutants.mutants(SEED, len(CASES))
    assert [c.source for c in again] == [c.source for c in CASES]  # seeded: the same sample every run


def _first(test) -> input_mutants.Mutant:
    """The generator's first mutant (seed 0) whose name passes ``test``."""
    rng = random.Random(0)
    while not test((case := store_mutants.mutant(rng, 0)).name):
        pass
    return case


def test_a_row_block_read_from_a_table_is_refused_at_its_store():
    """``pid_m = tl.load(tile_ids + row_tile)``: the host cannot know which
    chunks a tile writes, so it cannot count each chunk's writers (before
    41ef017: chunks never announced, a hang on GPUs)."""
    result = input_mutants.outcome(input_mutants.first_of(store_mutants.mutant, ("table",)))
    assert result.startswith("refused: chunk-dependency-analysis: mutant.py:") \
        and "depend on a value the host cannot compute" in result, result


@pytest.mark.parametrize("tensor", ["c", "b"])
def test_a_pointer_table_is_refused(tensor):
    """C's odd column tiles stored through a table holding C's address, or B
    read through one: refused at the cast, whichever tensor it holds."""
    result = input_mutants.outcome(input_mutants.first_of(store_mutants.mutant, ("ptrtable",), f"ptrtable={tensor}"))
    assert result.startswith("refused: chunk-dependency-analysis: mutant.py:") \
        and "makes a pointer from an integer" in result, result


def test_a_tile_loop_stepping_past_the_tiles_on_one_program_per_tile_fuses():
    """The tutorials' ``min(NUM_SMS, tiles)`` programs stepping by a
    constexpr ``STEP`` above the tile count: each program runs one tile."""
    case = _first(lambda name: name.split(" ")[1] == "step" and "step=over/" in name and "/arg" not in name)
    assert input_mutants.outcome(case) == "correct", case.name


@pytest.mark.parametrize("kinds, word", [(("nan",), ""), (("halves",), "halves=half"),
                                         (("halves",), "halves=unit")])
def test_nan_inputs_and_constexpr_arithmetic_rows_fuse(kinds, word):
    """NaN and infinite inputs match where the original's output has them;
    rows ``tl.arange(0, BLOCK_M // 2)`` (or BLOCK_M spelt in arithmetic)
    stay constexpr in the fused kernel."""
    case = input_mutants.first_of(store_mutants.mutant, kinds, *filter(None, [word]))
    assert input_mutants.outcome(case) == "correct", case.name
