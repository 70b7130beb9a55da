"""Find the source file of a module a kernel file imports jit helpers from.

``from .utils import tile_id`` / ``from mypkg.helpers import program_id_2d``:
the frontend imports such a helper like one of the kernel file's own jit
functions (a ``tile.func`` called through ``tile.call_jit``), so it needs the
helper's source. :func:`module_file` finds it without running any user code:

* a relative import is resolved against the importing file's folder (one
  folder up per extra dot);
* an absolute one against the importing file's folder, the folder that holds
  the importing file's top package (the highest folder up the chain that has
  an ``__init__.py``), then ``sys.path``.

A module is ``NAME.py`` or ``NAME/__init__.py`` under one of those folders.
Triton's own modules are never looked up: their names are Triton builtins.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SKIPPED = ("triton", "torch", "numpy", "math", "typing", "functools", "__future__")
"""Top-level modules that never hold the user's jit helpers."""


def import_origin(tree: ast.Module) -> dict[str, ast.ImportFrom]:
    """Local name -> the top-level ``from ... import`` statement binding it
    (imports of :data:`SKIPPED` modules and ``*`` imports left out)."""
    origin: dict[str, ast.ImportFrom] = {}
    for statement in tree.body:
        if not isinstance(statement, ast.ImportFrom):
            continue
        if statement.level == 0 and (statement.module or "").split(".")[0] in SKIPPED:
            continue
        for alias in statement.names:
            if alias.name != "*":
                origin[alias.asname or alias.name] = statement
    return origin


def search_roots(importer: Path, statement: ast.ImportFrom) -> list[Path]:
    """The folders a module of ``statement`` (in file ``importer``) may be under."""
    here = importer.resolve().parent
    if statement.level:
        base = here
        for _ in range(statement.level - 1):
            base = base.parent
        return [base]
    top = here
    while (top / "__init__.py").is_file():
        top = top.parent
    roots = [here, top, *(Path(p) for p in sys.path if p)]
    return list(dict.fromkeys(roots))


def module_file(importer: Path, statement: ast.ImportFrom) -> Path | None:
    """The source file of the module ``statement`` imports from, or None."""
    parts = statement.module.split(".") if statement.module else []
    for root in search_roots(importer, statement):
        folder = root.joinpath(*parts)
        candidates = [folder.with_suffix(".py")] if parts else []
        candidates.append(folder / "__init__.py")
        for candidate in candidates:
            if candidate.is_file():
                return candidate
    return None


def spelled(statement: ast.ImportFrom) -> str:
    """``from .utils`` / ``from mypkg.helpers``, as written."""
    return "from " + "." * statement.level + (statement.module or "")
