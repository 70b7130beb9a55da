"""Each test of syncopate.ops starts with no settled call paths: many
replace a check or a path with a stand-in, and a path settled by an earlier
test would skip it (pytorch/settled_calls.py)."""

import pytest

from syncopate.pytorch import settled_calls


@pytest.fixture(autouse=True)
def _no_settled_paths():
    settled_calls.forget()
    yield
    settled_calls.forget()
