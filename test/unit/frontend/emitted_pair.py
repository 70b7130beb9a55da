"""The original kernel module and the one syncopate emits from its imported
IR, both loaded, for tests that run them side by side under the Triton
interpreter."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from syncopate.ir.frontend.triton_import import import_file
from syncopate.lowering.triton_emitter import emit_module


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def original_and_emitted(tmp_path: Path, source: str, stem: str) -> tuple[ModuleType, ModuleType]:
    """``source`` written to ``tmp_path`` and loaded, then imported, re-emitted and loaded."""
    original = tmp_path / f"{stem}_original.py"
    original.write_text(source)
    emitted = tmp_path / f"{stem}_emitted.py"
    emitted.write_text(emit_module(import_file(str(original))))
    return _load(original), _load(emitted)
