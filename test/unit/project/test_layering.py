"""Imports flow one way, by folder: dialects < ir < passes < lowering <
runtime < pytorch, ops, tp < bench < tools, with the package facade
(``__init__.py``) on top and the plain Triton kernels (``kernels/``) at the
bottom. Every Python file of every package pyproject.toml ships is read from
its source (ast), local imports included, so a back edge cannot hide inside a
function; a module named to ``importlib`` counts as an import too. An edge
against the layers, or one that closes a circle of imports, fails unless
:data:`ALLOWED` lists it with its reason."""

import ast
import tomllib
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[3]

# (module prefix, layer); the longest matching prefix wins. A fraction orders
# the parts of one folder (ir's plans before its frontend before its
# analysis; runtime's shared modules before its two worlds before the harness).
LAYERS = [
    ("syncopate.kernels", 0),  # plain Triton sources: they import nothing of syncopate (test below)
    ("syncopate.dialects", 1),
    ("syncopate.ir", 2),  # contract, locations, context, verify, the xDSL lexer fix, plans
    ("syncopate.ir.frontend", 2.1),
    ("syncopate.ir.analysis", 2.2),
    # independent cross-checks of the analysis (test below: they import none of it)
    ("syncopate.ir.crosscheck", 2.2),
    ("syncopate.passes", 3),
    ("syncopate.lowering", 4),
    ("syncopate.runtime", 5),  # what every world needs: the launch ABI, the fused-kernel facade, rows, staging
    ("syncopate.runtime.sim", 5.5),  # simulated ranks
    ("syncopate.runtime.gpu", 5.5),  # the GPU World (neither imports the other: test below)
    ("syncopate.runtime.harness", 5.7),  # workload files and the checks, which drive either world
    ("syncopate.runtime.workload", 5.8),  # the public path of the workload contract (re-exports the harness's)
    ("syncopate.pytorch", 6),
    # the root modules: the PyTorch API's syncopate.ops and syncopate.tp, built on pytorch/
    ("syncopate.ops", 6.5),
    ("syncopate.tp", 6.5),
    ("syncopate.bench", 7),
    ("syncopate.tools", 8),
    ("syncopate", 9),  # the facade (__init__.py): it re-exports, lazily, from every layer
]

# Edges that go against the layers, or close a circle inside one, on
# purpose: (importer, imported module) -> the reason.
ALLOWED = {
    # chunk.plan's verify_ runs the plan verifier, so every plan xDSL parses
    # or builds is checked where xDSL checks ops; the verifier reads the op
    # through the plan model (ir/plans/model.py), which is built on the
    # dialect, so this edge closes the circle dialect -> verifier -> model ->
    # dialect. The imports are local to the verifiers, so loading the
    # dialect does not load the plan library.
    ("syncopate.dialects.chunk", "syncopate.ir.plans.verifier"):
        "chunk.plan is verified by the plan verifier, where xDSL verifies ops",
    ("syncopate.dialects.chunk", "syncopate.ir.plans.errors"):
        "the plan verifier's error, turned into xDSL's VerifyException",
    ("syncopate.dialects.chunk", "syncopate.ir.plans.expr"):
        "an extent attribute is checked by the plan library's expression grammar (one grammar, not two)",
    # deps.HostOverflow is the launch error for a row the device would
    # compute past int32: the host-side row evaluation of the analysis
    # raises what the runtime raises for the same launch. runtime/errors.py
    # is a leaf of exceptions (it imports nothing), so no circle.
    ("syncopate.ir.analysis.deps", "syncopate.runtime.errors"):
        "a row past int32 is the launch's error (AbiError), which the analysis raises too",
    # lower-chunk-to-tile and tile-reorder insert calls of the device
    # helpers, so the passes need the helpers' tile IR: they import the
    # Triton file with the frontend (as data: not the jit functions, nor
    # Triton). The helpers import nothing of syncopate, so no circle.
    ("syncopate.passes.device_helpers_ir", "syncopate.lowering.device_helpers"):
        "the passes call the device helpers, whose Triton source they import as tile IR",
    # the compile cache keys its entries by the package's version, which the
    # facade defines; a module of the package runs only once the facade has
    # loaded, so the import loads nothing.
    ("syncopate.pytorch.cache", "syncopate.__version__"):
        "the compile cache's key includes the package version, which __init__.py defines",
}


def layer(module: str) -> float | None:
    matches = [(len(prefix), rank) for prefix, rank in LAYERS if module == prefix or module.startswith(prefix + ".")]
    return max(matches)[1] if matches else None


def packages() -> list[str]:
    """The packages pyproject.toml ships (test_packaging.py keeps the list whole)."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]


def package_files() -> list[Path]:
    """Every Python file of every shipped package (each package's own folder:
    its subpackages are packages of their own)."""
    folders = [ROOT.joinpath(*name.split(".")[1:]) for name in packages()]
    return sorted(path for folder in folders for path in folder.glob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["syncopate", *parts])


IMPORTLIB_CALLS = ("import_module", "find_spec")


def _named_module(call: ast.Call) -> str | None:
    """The module an ``importlib`` call names: a string, or the constant head
    of an f-string (``f"syncopate.kernels.{name}"`` names a module of kernels/)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name not in IMPORTLIB_CALLS or not call.args:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        return str(arg.values[0].value).rstrip(".")
    return None


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The nodes under ``if TYPE_CHECKING:``: imports for annotations only."""
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            inside |= {id(n) for statement in node.body for n in ast.walk(statement)}
    return inside


def imports(path: Path, annotations: bool = True) -> list[tuple[int, str]]:
    """(line, imported name) of each syncopate import of ``path``;
    ``annotations=False`` leaves out those under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(), str(path))
    skip = set() if annotations else _type_checking_nodes(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call) and (named := _named_module(node)):
            found.append((node.lineno, named))
    return [(line, name) for line, name in found if name == "syncopate" or name.startswith("syncopate.")]


def _allowed(source: str, target: str) -> bool:
    return (source, target) in ALLOWED or (source, target.rsplit(".", 1)[0]) in ALLOWED


def back_edges() -> list[str]:
    edges = []
    for path in package_files():
        source = module_name(path)
        mine = layer(source)
        for line, target in imports(path):
            theirs = layer(target)
            if mine is not None and theirs is not None and theirs > mine and not _allowed(source, target):
                edges.append(f"{path.relative_to(ROOT)}:{line}: {source} (layer {mine}) imports {target} (layer {theirs})")
    return edges


def import_graph() -> nx.DiGraph:
    """Module -> the modules it imports when it runs (annotations-only
    imports left out: they load nothing), without the allowed edges."""
    modules = {module_name(path): path for path in package_files()}
    graph = nx.DiGraph()
    for source, path in modules.items():
        graph.add_node(source)
        for _, target in imports(path, annotations=False):
            while target not in modules and "." in target:  # a name imported from a module
                target = target.rsplit(".", 1)[0]
            if target in modules and target != source and not _allowed(source, target):
                graph.add_edge(source, target)
    return graph


def circles(graph: nx.DiGraph) -> list[list[str]]:
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


def test_every_package_file_is_read_and_has_a_layer():
    files = package_files()
    names = {module_name(p) for p in files}
    assert {"syncopate", "syncopate.ops", "syncopate.tp", "syncopate.tools.gen_pass_docs",
            "syncopate.pytorch.fused_ops", "syncopate.bench.problem", "syncopate.runtime.sim.world"} <= names
    assert [n for n in sorted(names) if layer(n) is None] == []


def test_imports_flow_one_way():
    assert back_edges() == []


def test_no_circles_of_imports():
    """A circle is a knot no layer order can untie: each is gone, or one of
    its edges is an allowed exception (annotation-only imports aside)."""
    assert circles(import_graph()) == []


def test_every_allowed_edge_exists_and_has_a_reason():
    """A listed exception whose import went away is listed no longer."""
    edges = {(module_name(p), target) for p in package_files() for _, target in imports(p)}
    edges |= {(source, target.rsplit(".", 1)[0]) for source, target in edges}
    assert [edge for edge in ALLOWED if edge not in edges] == []
    assert all(reason.strip() for reason in ALLOWED.values())


def test_the_kernels_import_nothing_of_syncopate():
    """kernels/ sits below every layer because it imports none of them."""
    offenders = [f"{p.relative_to(ROOT)}:{line}: {name}" for p in sorted((ROOT / "kernels").rglob("*.py"))
                 for line, name in imports(p)]
    assert offenders == []


def test_no_relative_imports():
    """Relative imports would escape the checks above (they read absolute names)."""
    relative = [f"{p.relative_to(ROOT)}:{node.lineno}" for p in package_files()
                for node in ast.walk(ast.parse(p.read_text())) if isinstance(node, ast.ImportFrom) and node.level]
    assert relative == []


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


def test_the_layering_check_sees_the_facade_importlib_and_annotations(tmp_path):
    fake = tmp_path / "m.py"
    fake.write_text("import importlib\nimport syncopate\nfrom typing import TYPE_CHECKING\n"
                    "if TYPE_CHECKING:\n    from syncopate.bench import runner\n"
                    "def f(name):\n    importlib.import_module(f'syncopate.kernels.{name}')\n"
                    "    importlib.util.find_spec('syncopate.lowering.device_helpers')\n")
    found = [(2, "syncopate"), (5, "syncopate.bench.runner"), (7, "syncopate.kernels"),
             (8, "syncopate.lowering.device_helpers")]
    assert sorted(imports(fake)) == found
    assert sorted(imports(fake, annotations=False)) == [f for f in found if f[0] != 5]
    assert layer("syncopate") > layer("syncopate.tools.overlap_opt")


def test_the_circle_check_sees_a_circle():
    graph = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    assert circles(graph) == [["a", "b", "c"]]


def test_every_folder_and_root_module_has_a_layer():
    """A new folder or root module must be placed in LAYERS, not left to the facade's layer."""
    folders = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert [f for f in folders if layer(f"syncopate.{f}") in (None, layer("syncopate")) and f != "test"] == []
    roots = sorted(p.stem for p in ROOT.glob("*.py") if p.name != "__init__.py")
    assert [r for r in roots if layer(f"syncopate.{r}") in (None, layer("syncopate"))] == []
    assert layer("syncopate.pytorch.fused_ops") < layer("syncopate.ops") < layer("syncopate.bench.tp_layer")
    order = ["dialects", "ir", "passes", "lowering", "runtime", "pytorch", "bench", "tools"]
    assert [layer(f"syncopate.{f}") for f in order] == sorted(layer(f"syncopate.{f}") for f in order)


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
