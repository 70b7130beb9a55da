"""Indices that subtract fuse soundly: `offs - PAD` (the range shifted
down) and `M - 1 - offs` (the range reversed: rows `[s - B + 1, s + 1)`)
match the unfused kernel on simulated ranks under every delivery order,
tile-isolated included, where a tile sees only the chunks it waited for.
The sizes put a chunk boundary where a footprint off by the shift or by
one row misses a chunk (M = 34, PAD = 12, BLOCK_M = 8: the boundary at row
17 is the top row of a reversed tile and inside a shifted one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from syncopate.tools import overlap_run

WORKLOAD = Path(__file__).resolve().parents[1] / "workloads" / "subtracted_index.py"


@pytest.mark.parametrize("kernel", ["shift_down", "reverse_rows"])
def test_a_subtracted_index_fuses_and_matches(tmp_path: Path, capsys, kernel: str):
    text = WORKLOAD.read_text()
    assert "KERNEL = shift_down\n" in text
    workload = tmp_path / "workload.py"
    workload.write_text(text.replace("KERNEL = shift_down\n", f"KERNEL = {kernel}\n"))
    code = overlap_run.main([str(workload), "--world", "2", "--delivery", "all"])
    out, err = capsys.readouterr()
    assert code == 0 and "all ranks match" in out and "[isolated]" in out, (out, err)
