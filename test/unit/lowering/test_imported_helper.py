"""A kernel that calls a jit helper imported from another module of the
user's package fuses: the frontend reads the helper's source without running
it, the fused file carries the helper, and the fused kernel matches the
unfused one on simulated ranks under every delivery order, tile-isolated
included (test/frontend/imported-helper.py shows the IR)."""

from __future__ import annotations

from pathlib import Path

import pytest

from syncopate.ir.frontend import FrontendError, import_file
from syncopate.tools import overlap_run

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "frontend" / "inputs"
WORKLOAD = PACKAGE_ROOT / "helperpkg" / "gather.py"


def test_a_kernel_with_an_imported_helper_fuses_and_runs(tmp_path: Path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(PACKAGE_ROOT))  # the workload imports the package, as an installed one
    emitted = tmp_path / "fused.py"
    code = overlap_run.main([str(WORKLOAD), "--world", "2", "--delivery", "all", "--emit", str(emitted)])
    out, err = capsys.readouterr()
    assert code == 0 and "all ranks match" in out and "[isolated]" in out, (out, err)
    source = emitted.read_text()
    assert "def tile_coords(" in source and "def _group_of(" in source and "helperpkg" not in source, source


def _package(tmp_path: Path, helpers: str, kernel: str) -> Path:
    package = tmp_path / "userpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helpers.py").write_text("import triton\nimport triton.language as tl\n" + helpers)
    path = package / "kernel.py"
    path.write_text("import triton\nimport triton.language as tl\n" + kernel)
    return path


KERNEL = """from userpkg.helpers import offset

@triton.jit
def k(x_ptr):
    tl.store(x_ptr + offset(3), 1.0)
"""


def test_the_helper_module_is_read_not_run(tmp_path: Path):
    helpers = 'raise RuntimeError("the frontend ran the helper module")\n\n@triton.jit\ndef offset(i):\n    return i + 1\n'
    module = import_file(_package(tmp_path, helpers, KERNEL))
    assert [op.sym_name.data for op in module.ops] == ["k", "offset"]


def test_two_helpers_of_one_name_are_refused(tmp_path: Path):
    helpers = "@triton.jit\ndef _base():\n    return 1\n\n@triton.jit\ndef offset(i):\n    return i + _base()\n"
    kernel = KERNEL + "\n@triton.jit\ndef _base():\n    return 2\n"
    with pytest.raises(FrontendError, match=r"jit function `_base` is defined in both kernel.py and helpers.py; the fused file"):
        import_file(_package(tmp_path, helpers, kernel))


def test_configs_imported_from_the_users_package_are_refused():
    """`from .configs import block_configs` feeds @triton.autotune: importing
    the user's module from the emitted file would run whatever it holds, so
    the frontend refuses it at the import's line (dialects/python_grammar.py)."""
    with pytest.raises(FrontendError, match=r"autotuned.py:6: error: .from helperpkg.configs import block_configs' imports"):
        import_file(str(PACKAGE_ROOT / "helperpkg" / "autotuned.py"))


def test_a_relative_import_is_made_absolute_in_its_package():
    from syncopate.ir.frontend.helper_modules import absolute_module, package_of

    assert package_of(PACKAGE_ROOT / "helperpkg" / "autotuned.py") == "helperpkg"
    assert package_of(PACKAGE_ROOT / "nowhere.py") is None
    assert absolute_module("a.b", 1, "configs") == "a.b.configs"
    assert absolute_module("a.b", 2, "configs") == "a.configs"
    assert absolute_module("a.b", 1, None) == "a.b"
    assert absolute_module("a.b", 3, "configs") is None  # climbs out of the package
    assert absolute_module(None, 1, "configs") is None
