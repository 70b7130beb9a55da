"""docs/errors.md names, for each kind of bad input, the test that pins it
down: each named test must exist, so the table cannot promise coverage the
suite does not have."""

from __future__ import annotations

import glob
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def test_every_test_the_error_table_names_exists():
    with open(os.path.join(ROOT, "docs", "errors.md")) as f:
        rows = [line for line in f if line.startswith("| ") and not line.startswith("| input")]
    assert len(rows) >= 20
    for row in rows:
        cited = re.findall(r"`(test/[^`]+)`", row.rsplit("|", 2)[-2])
        assert cited, f"row cites no test: {row.strip()}"
        for path in cited:
            assert glob.glob(os.path.join(ROOT, path)), f"{path} (cited by docs/errors.md) does not exist"
