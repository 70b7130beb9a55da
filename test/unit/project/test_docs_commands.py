"""The commands the docs show run: every ``overlap-opt`` / ``overlap-run``
command in docs/*.md and README.md whose input is a file of this repository
(not a placeholder such as ``kernel.py``) exits 0, as a reader typing it
would expect. Continued lines (a trailing backslash) are joined; a command
that writes ``-o FILE`` writes into a temporary folder."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TOOLS = ("overlap-opt", "overlap-run")


def _commands() -> list[tuple[str, str]]:
    found = []
    for doc in sorted([*(ROOT / "docs").glob("*.md"), ROOT / "README.md"]):
        lines = doc.read_text().splitlines()
        i = 0
        while i < len(lines):
            line = lines[i].strip()
            i += 1
            if not line.startswith(TOOLS):
                continue
            while line.endswith("\\") and i < len(lines):
                line = line[:-1].rstrip() + " " + lines[i].strip()
                i += 1
            command = line.split("  #")[0].strip()
            words = shlex.split(command)
            inputs = [w for w in words[1:] if re.fullmatch(r"[\w./-]+\.(py|mlir)", w)]
            if inputs and (ROOT / inputs[0]).is_file():
                found.append((doc.name, command))
    return found


COMMANDS = _commands()


def test_the_docs_show_runnable_commands():
    assert len(COMMANDS) >= 3, COMMANDS  # the README's two and the extension guide's, at least


@pytest.mark.parametrize("doc, command", COMMANDS, ids=[f"{d}:{c[:60]}" for d, c in COMMANDS])
def test_a_documented_command_runs(doc, command, tmp_path):
    words = shlex.split(command)
    if "-o" in words:
        words[words.index("-o") + 1] = str(tmp_path / Path(words[words.index("-o") + 1]).name)
    tool = Path(sys.executable).parent / words[0]
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    done = subprocess.run([str(tool), *words[1:]], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{doc}: `{command}` failed:\n{done.stderr[-2000:]}"
