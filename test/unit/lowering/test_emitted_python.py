"""Emitted files always parse: every example, corpus and bench kernel file,
imported and emitted as it is, and every fusion the examples and the corpus
state, through the default ``overlap`` pipeline at W = 2.

``emit_module`` parses its own output and raises :class:`EmitError` on text
that is not Python; this test also parses the text itself, so it fails even
if that check were removed, and checks that each tile.func became a function
of the same name.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import sys
from pathlib import Path

import pytest

from syncopate.dialects import tile
from syncopate.ir.frontend.triton_import import import_file
from syncopate.lowering.compile import compile_module
from syncopate.lowering.triton_emitter import emit_module
from syncopate.runtime.harness.workload import load_workload, with_world

ROOT = Path(__file__).resolve().parents[3]
KERNEL_FILES = sorted(
    p for folder in ("examples", "test/corpus", "kernels") for p in (ROOT / folder).glob("*.py")
    if not p.name.startswith("_") and "@triton.jit" in p.read_text()
)
FUSIONS = sorted(p for folder in ("examples", "test/corpus") for p in (ROOT / folder).glob("*.py")
                 if any(f"\n{n} = " in p.read_text() for n in ("PLANS", "FUSE")))


def _parses_with_every_function(module) -> None:
    text = emit_module(module)
    tree = ast.parse(text)
    defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    funcs = {op.sym_name.data for op in module.ops if isinstance(op, tile.FuncOp)}
    assert funcs and funcs <= defined, (funcs, defined)


@pytest.mark.parametrize("path", KERNEL_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_kernel_file_emits_python_that_parses(path: Path):
    _parses_with_every_function(import_file(path))


def _fusion(path: Path) -> tuple[str, str, list[str]]:
    """(kernel source file, kernel name, plan specs at W = 2) of a fusion a file states."""
    if "\nPLANS = " in path.read_text():
        workload = load_workload(str(path))
        function = getattr(workload.kernel, "fn", workload.kernel)
        while hasattr(function, "fn"):  # an autotuned or heuristics-wrapped kernel
            function = function.fn
        return inspect.getsourcefile(function), function.__name__, workload.plan_specs(2)
    spec = importlib.util.spec_from_file_location(f"_syncopate_emitted_{path.stem}", path)
    corpus = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = corpus
    spec.loader.exec_module(corpus)
    return str(path), corpus.make_case(0)["kernel"], [with_world(corpus.FUSE[0], 2)]


@pytest.mark.parametrize("path", FUSIONS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_fused_kernel_emits_python_that_parses(path: Path):
    source, kernel, plans = _fusion(path)
    module = compile_module(source, kernel, plans)
    _parses_with_every_function(module)
    assert any(op.sym_name.data.startswith("syn_") for op in module.ops if isinstance(op, tile.FuncOp)), \
        "the overlap pipeline added no device helper: nothing was fused"
