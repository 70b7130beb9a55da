"""The commands the docs show run.

Every command in a code block of docs/*.md or README.md (fenced, or indented
by four spaces), or in an inline code span of their prose, that starts with
``overlap-opt``, ``overlap-run`` or ``overlap-bench`` is either run here and
must exit 0, or is excluded by a rule of :data:`EXCLUDED` that says why (it
needs GPUs; an inline span that is a synopsis or names a flag). A reader
types these commands from the repository root, so an input path the docs
give relative to the root is passed as an absolute path; the command itself
runs in a temporary folder, so whatever it writes (``-o FILE``,
``--plan-diagram FILE``, ``bench-results/``) lands there and never in the
tree. The docs use a few placeholder names for
the reader's own kernel; :data:`PLACEHOLDERS` stands a repository example in
for each. The tools run as their ``[project.scripts]`` entry points, from the
same tree as this test imports.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import syncopate

ROOT = Path(__file__).resolve().parents[3]
TOOLS = ("overlap-opt", "overlap-run", "overlap-bench")

PLACEHOLDERS = {
    "kernel.py": "examples/ag_gemm.py",
    "attn.py": "examples/attention_ag_kv.py",
    "SPEC": "all-gather{tensor=a_ptr dim=0 world=4}",
}
"""Placeholder word of the docs -> the repository example that fits the
command around it (``a_ptr`` is ag_gemm's gathered operand, ``k_ptr`` and
``v_ptr`` the attention kernel's)."""

GENERATED = {"kernel.mlir": ["overlap-opt", "examples/ag_gemm.py", "-o", "kernel.mlir"]}
"""Placeholder inputs that are a tool's output: the command that writes each
into the temporary folder before the documented command runs."""


@dataclass(frozen=True)
class DocCommand:
    """One documented command: where it is written and its words."""

    doc: str
    line: int
    words: tuple[str, ...]
    inline: bool = False  # an inline code span of the prose, not a code block

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def _under_torchrun(words: tuple[str, ...]) -> bool:
    return words[0] == "torchrun"


def _needs_gpu_bench(words: tuple[str, ...]) -> bool:
    return words[0] == "overlap-bench" and not {"--cpu", "--list-shapes"} & set(words)


def _needs_gpu_run(words: tuple[str, ...]) -> bool:
    return words[0] == "overlap-run" and "--gpu" in words


SYNOPSIS = re.compile(r"[\[\]|]|\b[A-Z][A-Z_]+\b")
"""What marks a synopsis: ``[optional]`` parts, ``a|b`` choices, NAME-like
placeholders (``WORKLOAD.py``, ``-p NAME``)."""


def _inline_synopsis(command: "DocCommand") -> bool:
    return command.inline and any(SYNOPSIS.search(w) for w in command.words if w not in PLACEHOLDERS)


def _inline_name_or_flag(command: "DocCommand") -> bool:
    """The tool's name alone, or ``overlap-run --flag`` without a workload."""
    words = command.words
    return command.inline and (len(words) == 1 or (words[0] == "overlap-run" and not any(w.endswith(".py") for w in words)))


EXCLUDED: dict[str, Callable[["DocCommand"], bool]] = {
    "an inline synopsis shows a command's form ([options], a|b, NAME placeholders), not a command": _inline_synopsis,
    "an inline tool name, or overlap-run --flag without a workload, names the tool or a flag in prose": _inline_name_or_flag,
    "torchrun starts one process per GPU": lambda c: _under_torchrun(c.words),
    "overlap-bench without --cpu or --list-shapes times kernels on GPUs under torchrun": lambda c: _needs_gpu_bench(c.words),
    "overlap-run --gpu launches on GPUs under torchrun": lambda c: _needs_gpu_run(c.words),
}
"""Reason -> rule: a documented command a rule matches is not run here."""


def _code_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, stripped line) of each line inside a code block: a
    fenced block, or a block indented by four spaces (extending.md's)."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced or line.startswith("    "):
            yield number, line.strip()


def _commands_in(doc: Path) -> Iterator[DocCommand]:
    """The tool commands of one document, continued lines (trailing ``\\``)
    joined and ``# comments`` dropped."""
    lines = list(_code_lines(doc.read_text()))
    i = 0
    while i < len(lines):
        number, text = lines[i]
        i += 1
        head = _without_assignments(text.split()[:8])
        if not head or (head[0] not in TOOLS and head[0] != "torchrun"):
            continue
        while text.endswith("\\") and i < len(lines):
            text = text[:-1].rstrip() + " " + lines[i][1]
            i += 1
        words = _without_assignments(shlex.split(text, comments=True))
        if words[0] in TOOLS or _is_tool_module_under_torchrun(words):
            yield DocCommand(doc.relative_to(ROOT).as_posix(), number, words)


def _without_assignments(words: list[str]) -> tuple[str, ...]:
    """The command after its leading ``NAME=value`` environment settings."""
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
        words = words[1:]
    return tuple(words)


def _is_tool_module_under_torchrun(words: tuple[str, ...]) -> bool:
    """``torchrun ... -m syncopate.tools.overlap_bench ...``: a tool started
    once per GPU, found so that a rule must exclude it."""
    return words[0] == "torchrun" and any(w.startswith("syncopate.tools.") for w in words)


INLINE = re.compile(r"`((?:overlap-opt|overlap-run|overlap-bench)(?: [^`]*)?)`")


def _inline_commands_in(doc: Path) -> Iterator[DocCommand]:
    """The tool commands of inline code spans outside code blocks."""
    code = {number for number, _ in _code_lines(doc.read_text())}
    for number, line in enumerate(doc.read_text().splitlines(), start=1):
        if number in code or line.lstrip().startswith("```"):
            continue
        for span in INLINE.findall(line):
            yield DocCommand(doc.relative_to(ROOT).as_posix(), number, tuple(shlex.split(span)), inline=True)


def documented_commands() -> list[DocCommand]:
    docs = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    return [command for doc in docs for found in (_commands_in(doc), _inline_commands_in(doc)) for command in found]


def exclusion(command: DocCommand) -> str | None:
    """The reason ``command`` is not run here, or None."""
    return next((reason for reason, rule in EXCLUDED.items() if rule(command)), None)


FULL_MATRIX = os.environ.get("SYNCOPATE_FULL_MATRIX") == "1"


def slow(words: tuple[str, ...]) -> bool:
    """A command that takes about 20 s or more on two cores: overlap-bench
    --cpu times every row of a table, and ``--delivery all`` runs every
    delivery order. They run with SYNCOPATE_FULL_MATRIX=1, as the suite's
    other slow matrices do."""
    delivers_all = any(a == "--delivery" and b == "all" for a, b in zip(words, words[1:]))
    return (words[0] == "overlap-bench" and "--cpu" in words) or delivers_all


COMMANDS = documented_commands()
RUN = list({c.words: c for c in reversed([c for c in COMMANDS if exclusion(c) is None])}.values())[::-1]
"""The commands to run, each once (``overlap-bench --cpu`` is in two docs),
under the id of its first place."""


def _entry_points() -> dict[str, str]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]


def _tool_argv(tool: str) -> list[str]:
    """``python -c`` calling the tool's entry point as its console script does."""
    module, function = _entry_points()[tool].split(":")
    code = f"import sys; from {module} import {function}; sys.argv[0] = {tool!r}; sys.exit({function}())"
    return [sys.executable, "-c", code]


def _environment() -> dict[str, str]:
    """This process's environment, with the folder that holds the imported
    ``syncopate`` first on the path so the tools run the tree under test."""
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    holder = Path(syncopate.__file__).parent.parent
    if (holder / "syncopate").exists():
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(holder), env.get("PYTHONPATH")) if p)
    return env


def _resolve(word: str) -> str:
    """A placeholder becomes its example; a path of the repository (the docs
    run from its root) becomes absolute; any other word stays."""
    word = PLACEHOLDERS.get(word, word)
    if re.fullmatch(r"[\w.-]+(/[\w.-]+)+", word) and (ROOT / word).exists():
        return str(ROOT / word)
    return word


OUTPUT_OPTIONS = ("-o", "--emit", "--plan-diagram", "--out")
"""Options whose value is a file or folder the tool writes: it stays relative,
so it lands in the temporary folder (docs/plan-all-gather-ring4.svg too)."""


def _arguments(words: list[str] | tuple[str, ...]) -> list[str]:
    return [w if i > 1 and words[i - 1] in OUTPUT_OPTIONS else _resolve(w) for i, w in enumerate(words) if i]


def run_tool(words: list[str] | tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess[str]:
    (cwd / "docs").mkdir(exist_ok=True)  # where docs/usage.md's diagram command writes
    argv = _tool_argv(words[0]) + _arguments(words)
    return subprocess.run(argv, cwd=cwd, env=_environment(), capture_output=True, text=True, timeout=600)


def test_the_docs_show_runnable_commands():
    """The extraction finds the commands, so an empty parametrization cannot
    pass silently: the README's two, usage.md's and extending.md's."""
    docs = {c.doc for c in RUN}
    assert {"README.md", "docs/usage.md", "docs/extending.md", "docs/performance.md"} <= docs, RUN
    assert len(RUN) >= 12, [c.id for c in RUN]
    assert any(c.inline for c in RUN), "no inline command of the prose is run"


def test_what_a_command_writes_stays_in_its_folder():
    """An output path the docs give (even one of the tree, as usage.md's
    diagram) stays relative, so the run writes it in its temporary folder;
    an input path of the tree becomes absolute."""
    words = ("overlap-opt", "examples/ag_gemm.py", "--plan-diagram", "docs/plan-all-gather-ring4.svg", "-o", "x.py")
    assert _arguments(words) == [str(ROOT / "examples/ag_gemm.py"), "--plan-diagram", "docs/plan-all-gather-ring4.svg",
                                 "-o", "x.py"]


def test_the_torchrun_commands_are_found_and_excluded():
    """The GPU commands are seen and excluded by a rule, not skipped because
    the extraction missed them."""
    excluded = [c for c in COMMANDS if exclusion(c) is not None]
    assert any(c.words[0] == "torchrun" for c in excluded), [c.id for c in COMMANDS]
    assert all(c.words[0] in TOOLS for c in RUN)


@pytest.mark.parametrize("command", [
    pytest.param(c, id=c.id, marks=pytest.mark.skipif(slow(c.words) and not FULL_MATRIX,
                                                      reason="slow: runs with SYNCOPATE_FULL_MATRIX=1"))
    for c in RUN])
def test_a_documented_command_runs(command: DocCommand, tmp_path: Path):
    for word in command.words:
        if word in GENERATED:
            made = run_tool(GENERATED[word], tmp_path)
            assert made.returncode == 0, made.stderr[-2000:]
    done = run_tool(command.words, tmp_path)
    shown = shlex.join(command.words)
    assert done.returncode == 0, f"{command.id}: `{shown}` failed:\n{done.stderr[-2000:]}"
