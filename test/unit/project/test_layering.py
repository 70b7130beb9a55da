"""Imports flow one way: kernels and contract -> dialects/plans -> frontend
-> analysis -> passes -> lowering -> runtime -> pytorch -> the root modules
(ops, tp) -> bench -> tools -> the package facade.
Read from the sources (ast), local imports included, so a back edge cannot
hide inside a function."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# (module prefix, layer); the longest matching prefix wins.
LAYERS = [
    ("syncopate.kernels", 0),  # plain Triton sources: they import nothing of syncopate
    ("syncopate.ir.contract", 0),
    # the launch error (a leaf: it imports nothing), which the host-side row
    # evaluation of ir/analysis/deps.py raises too (deps.HostOverflow): a row
    # the device would compute past int32 is an error of that launch
    ("syncopate.runtime.errors", 0),
    ("syncopate.ir.xdsl_lexer", 0),  # a fix to xDSL's lexer: imports only xDSL
    ("syncopate.ir.plans.errors", 1),
    ("syncopate.ir.plans.expr", 1),
    ("syncopate.dialects", 2),
    ("syncopate.ir.plans", 3),
    ("syncopate.ir.locations", 3),
    ("syncopate.ir.context", 3),
    ("syncopate.ir.verify", 3),  # xDSL's verifier with located messages: imports nothing of syncopate
    ("syncopate.ir", 3),  # the package itself
    ("syncopate.ir.frontend", 4),
    ("syncopate.ir.analysis", 5),
    # independent cross-checks of the analysis (test below: they import none of it)
    ("syncopate.ir.crosscheck", 5),
    ("syncopate.passes", 6),
    ("syncopate.lowering", 7),
    ("syncopate.runtime", 8),  # what every world needs: the launch ABI, the fused-kernel facade, rows, staging
    ("syncopate.runtime.sim", 8.5),  # simulated ranks
    ("syncopate.runtime.gpu", 8.5),  # the GPU World (neither imports the other: test below)
    ("syncopate.runtime.harness", 8.7),  # workload files and the checks, which drive either world
    ("syncopate.runtime.workload", 8.8),  # the public path of the workload contract (re-exports the harness's)
    ("syncopate.pytorch", 9),
    ("syncopate.ops", 10),
    ("syncopate.tp", 10),
    ("syncopate.bench", 11),
    ("syncopate.tools", 12),
    ("syncopate", 13),  # the facade (__init__.py): it re-exports, lazily, from every layer
]
SOURCE_DIRS = ("ir", "dialects", "passes", "lowering", "runtime", "kernels", "pytorch", "bench", "tools")
ROOT_MODULES = ("ops.py", "tp.py", "__init__.py")

# Edges that go against the layers on purpose, each with its reason.
ALLOWED = {
    # chunk.plan's verify_ runs the plan verifier, so every plan xDSL parses
    # or builds is checked where xDSL checks ops; the verifier reads the op
    # through the plan model (ir/plans/model.py), which is built on the
    # dialect. The import is local to verify_, so loading the dialect does
    # not load the plan library.
    ("syncopate.dialects.chunk", "syncopate.ir.plans.verifier"),
}


def layer(module: str) -> int | None:
    matches = [(len(prefix), rank) for prefix, rank in LAYERS if module == prefix or module.startswith(prefix + ".")]
    return max(matches)[1] if matches else None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["syncopate", *parts])


def imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name.startswith("syncopate.")]


def back_edges() -> list[str]:
    edges = []
    paths = [p for folder in SOURCE_DIRS for p in sorted((ROOT / folder).rglob("*.py"))]
    for path in paths + [ROOT / name for name in ROOT_MODULES]:
        if True:
            source = module_name(path)
            mine = layer(source)
            for line, target in imports(path):
                theirs = layer(target)
                if mine is None or theirs is None or theirs <= mine:
                    continue
                if (source, target.rsplit(".", 1)[0]) in ALLOWED or (source, target) in ALLOWED:
                    continue
                edges.append(f"{path.relative_to(ROOT)}:{line}: {source} (layer {mine}) imports {target} (layer {theirs})")
    return edges


def test_imports_flow_one_way():
    assert back_edges() == []


def test_the_runtime_imports_nothing_from_passes():
    offenders = [f"{p.relative_to(ROOT)}:{line}: {name}" for p in sorted((ROOT / "runtime").rglob("*.py"))
                 for line, name in imports(p) if name.startswith("syncopate.passes")]
    assert offenders == []


def test_the_worlds_import_nothing_of_each_other():
    """Simulated ranks and the GPU World share only what lives below both (runtime/)."""
    offenders = []
    for mine, theirs in (("sim", "gpu"), ("gpu", "sim")):
        offenders += [f"{p.relative_to(ROOT)}:{line}: {name}" for p in sorted((ROOT / "runtime" / mine).rglob("*.py"))
                      for line, name in imports(p) if name.startswith(f"syncopate.runtime.{theirs}.")
                      or name == f"syncopate.runtime.{theirs}"]
    assert offenders == []


def test_the_layering_check_sees_a_local_back_edge(tmp_path):
    fake = tmp_path / "m.py"
    fake.write_text("def f():\n    from syncopate.runtime.fused import FusedProgram\n")
    assert imports(fake) == [(2, "syncopate.runtime.fused.FusedProgram")]
    assert layer("syncopate.ir.analysis.deps") < layer("syncopate.runtime.fused")


def test_every_folder_and_root_module_has_a_layer():
    """A new folder or root module must be placed in LAYERS, not skipped."""
    folders = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert [f for f in folders if layer(f"syncopate.{f}") in (None, 13) and f != "test"] == []
    roots = sorted(p.name for p in ROOT.glob("*.py") if p.name != "setup.py")
    assert [r for r in roots if r not in ROOT_MODULES] == []
    assert layer("syncopate.pytorch.fused_ops") < layer("syncopate.ops") < layer("syncopate.bench.tp_layer")


# What the independent address verifier must not import: the footprint model
# it cross-checks and the passes that place or verify waits with that model.
CROSSCHECK_FORBIDDEN = ("syncopate.ir.analysis", "syncopate.passes.verify_sync", "syncopate.passes.insert_signals",
                        "syncopate.passes.chunk_dependency_analysis")
CROSSCHECK_FILES = ("ir/crosscheck", "passes/verify_addresses.py")


def crosscheck_offenders(paths: list[Path]) -> list[str]:
    return [f"{p.name}:{line}: {name}" for p in paths for line, name in imports(p)
            if any(name == f or name.startswith(f + ".") for f in CROSSCHECK_FORBIDDEN)]


def test_the_address_verifier_shares_no_code_with_the_footprint_model():
    paths = [p for entry in CROSSCHECK_FILES for p in ([ROOT / entry] if entry.endswith(".py")
                                                       else sorted((ROOT / entry).rglob("*.py")))]
    assert len(paths) >= 3
    assert crosscheck_offenders(paths) == []


def test_the_crosscheck_rule_sees_a_forbidden_import(tmp_path):
    for line in ("from syncopate.ir.analysis import footprint", "import syncopate.ir.analysis.deps",
                 "from syncopate.passes.verify_sync import verify", "from syncopate.ir.analysis.symbolic import text"):
        fake = tmp_path / "m.py"
        fake.write_text(f"def f():\n    {line}\n")
        assert crosscheck_offenders([fake]) != [], line
