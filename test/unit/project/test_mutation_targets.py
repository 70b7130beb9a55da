"""The mutation scripts (test/mutation/) sabotage exact pieces of source. A
rewrite that changes such a piece turns its mutation stale: the script then
reports it and checks nothing. So every mutation's text must occur exactly
once in its file, and every test file it names must exist."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "test" / "mutation"))

SCRIPTS = ("run_mutations", "run_runtime_mutations")
CASES = [(script, m) for script in SCRIPTS for m in importlib.import_module(script).MUTATIONS]


@pytest.mark.parametrize("script, mutation", CASES, ids=[f"{s}:{m.name}" for s, m in CASES])
def test_a_mutation_targets_text_that_occurs_once(script, mutation):
    source = (ROOT / mutation.path).read_text()
    assert source.count(mutation.old) == 1, f"{script}: '{mutation.name}' targets text found " \
                                            f"{source.count(mutation.old)} times in {mutation.path}"
    for test in (*mutation.pytest, *mutation.lit):
        assert (ROOT / test.split("::")[0]).exists(), f"{script}: '{mutation.name}' names a missing test {test}"
