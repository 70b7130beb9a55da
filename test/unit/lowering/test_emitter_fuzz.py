"""Mutated IR is refused cleanly or emitted as Python that parses.

The printed IR of real kernels (a fused all-gather GEMM with its device
helpers, a corpus kernel with a while loop, the dialect's Python-text test)
is mutated one edit at a time by a seeded mutator: a string attribute becomes
a payload (code injection, keywords, broken syntax), an operand another
value, a type another type, a symbol another symbol, a line is deleted,
duplicated or swapped with the next. ``overlap-opt -t triton`` on each mutant
must either exit 1 with one ``overlap-opt: error:`` line (the parser, the
verifiers or the emitter refused it) or exit 0 with Python that parses and
holds nothing a payload would add (an import, ``os``, a dunder attribute).
A traceback, another exit status or unparsable output fails the test, which
names the seed to reproduce it (``_mutant(text, random.Random(seed))``).
"""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

from syncopate.lowering.compile import compile_module
from syncopate.tools import overlap_opt

ROOT = Path(__file__).resolve().parents[3]
SEEDS = range(25)

PAYLOADS = (
    "tl.exp(x); import os; os.getcwd", "os.system('echo pwned')", "__import__('os').getcwd()", "tl.__class__",
    "x\nimport os", "a-b", "class", "1 +", "", "tl", "min", "triton.jit", "lambda: 0", "16", "'fast'", "tl.float16",
)  # fmt: skip
TYPES = ("i1", "i32", "f32", "!tile.ptr", "!tile.any", "!tile.constexpr", "!tile.block<?xf32>", "!tile.desc<2>")
SYMBOLS = ("@missing", "@class", '@"os.system"', "@gemm_kernel", "@syn_spin", "@ag")
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
VALUE = re.compile(r"%[A-Za-z_][\w.$-]*|%\d+")
TYPE = re.compile(r"\b(i1|i32|i64|f32|f16)\b|!tile\.(ptr|any|scalar|constexpr)\b")
SYMBOL = re.compile(r"@[A-Za-z_]\w*")


def _replace(lines: list[str], pattern: re.Pattern[str], choices: tuple[str, ...], rng: random.Random,
             group: int = 0, uses_only: bool = False) -> str | None:
    spots = [(i, m) for i, line in enumerate(lines) for m in pattern.finditer(line)
             if not uses_only or ("=" in line and m.start() > line.index("="))]
    if not spots:
        return None
    i, match = rng.choice(spots)
    line = lines[i]
    new = rng.choice(choices)
    lines[i] = line[: match.start(group)] + new + line[match.end(group):]
    return f"line {i + 1}: {match.group(group)!r} -> {new!r}"


def _mutant(text: str, rng: random.Random) -> tuple[str, str]:
    """One edit of ``text``, and what it was."""
    lines = text.split("\n")
    kind = rng.choice(("string", "string", "operand", "operand", "type", "symbol", "delete", "duplicate", "swap"))
    if kind == "string":
        what = _replace(lines, STRING, PAYLOADS, rng, group=1)
    elif kind == "operand":
        values = tuple(sorted({m.group() for line in lines for m in VALUE.finditer(line)}))
        what = _replace(lines, VALUE, values, rng, uses_only=True)
    elif kind == "type":
        what = _replace(lines, TYPE, TYPES, rng)
    elif kind == "symbol":
        what = _replace(lines, SYMBOL, SYMBOLS, rng)
    else:
        body = [i for i, line in enumerate(lines) if line.startswith("    ") and line.strip() not in ("", "}")]
        i = rng.choice(body)
        what = f"line {i + 1}: {lines[i].strip()[:60]!r}"
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        else:
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return "\n".join(lines), f"{kind} {what}"


def _imports(tree: ast.Module) -> set[str]:
    return {ast.unparse(node) for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))}


def _injected(tree: ast.Module, imports: set[str]) -> list[str]:
    """What a payload would add to the emitted file: an import the unmutated
    IR's file does not have, a dunder attribute, a name of the payloads' own
    (``os``, ``__import__``)."""
    found = sorted(_imports(tree) - imports)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("__"):
            found.append(f"attribute {node.attr}")
        if isinstance(node, ast.Name) and node.id in ("os", "__import__"):
            found.append(f"name {node.id}")
    return found


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    fused = compile_module(str(ROOT / "examples" / "ag_gemm.py"), "gemm_kernel", ["all-gather{tensor=a_ptr dim=0 world=2}"])
    return {
        "fused ag_gemm": str(fused),
        "while_loop": str(compile_module(str(ROOT / "test" / "corpus" / "while_loop.py"), "sumsq_while_kernel", [], "")),
        "python-text": (ROOT / "test" / "tile-dialect" / "python-text.mlir").read_text(),
    }


@pytest.mark.parametrize("name", ["fused ag_gemm", "while_loop", "python-text"])
def test_mutated_ir_is_refused_cleanly_or_emits_python(name: str, sources: dict[str, str], tmp_path: Path, capsys):
    path = tmp_path / "mutant.mlir"
    path.write_text(sources[name])
    assert overlap_opt.main([str(path), "-t", "triton"]) == 0
    imports = _imports(ast.parse(capsys.readouterr().out))
    outcomes: dict[str, int] = {"refused": 0, "emitted": 0}
    for seed in SEEDS:
        text, what = _mutant(sources[name], random.Random(seed))
        path.write_text(text)
        try:
            code = overlap_opt.main([str(path), "-t", "triton"])
        except SystemExit as done:  # argparse: not expected for these arguments
            code = int(done.code or 0)
        out, err = capsys.readouterr()
        where = f"{name}, seed {seed} ({what})"
        if code == 0:
            try:
                tree = ast.parse(out)
            except SyntaxError as bad:
                pytest.fail(f"{where}: emitted Python that does not parse: {bad}\n{out}")
            injected = _injected(tree, imports)
            assert not injected, f"{where}: the emitted Python has {injected}, which the IR did not mean\n{out}"
            outcomes["emitted"] += 1
        else:
            assert code == 1, f"{where}: exit {code}\n{err}"
            assert err.startswith("overlap-opt: error:") and "Traceback" not in err, f"{where}: {err}"
            outcomes["refused"] += 1
    # Both outcomes occur: a harness that refused (or accepted) everything would test nothing.
    assert outcomes["refused"] and outcomes["emitted"], outcomes
