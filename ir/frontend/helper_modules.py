"""Find the source of a jit helper a kernel file imports from another module.

``from .utils import tile_id`` / ``from mypkg.helpers import program_id_2d``
/ ``from . import tiles`` then ``tiles.tile_coords(...)``: the frontend
imports such a helper like one of the kernel file's own jit functions (a
``tile.func`` called through ``tile.call_jit``), so it needs the helper's
source. :func:`helper_source` finds it without running any user code:

* a relative import is resolved against the importing file's folder (one
  folder up per extra dot);
* an absolute one against the importing file's folder, the folder that holds
  the importing file's top package (the highest folder up the chain that has
  an ``__init__.py``), then ``sys.path``.

A module is ``NAME.py`` or ``NAME/__init__.py`` under one of those folders.
The modules in :data:`SKIPPED` (Triton's own among them) are never looked up:
their names are builtins.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

SKIPPED = ("triton", "torch", "numpy", "math", "typing", "functools", "__future__")
"""Top-level modules that never hold the user's jit helpers."""


@dataclass(frozen=True)
class Origin:
    """What an import binds a local name to: ``name`` of module ``module``
    (``from module import name``), or the module itself (``name`` None:
    ``import a.b as c``, ``import a``)."""

    module: str | None
    level: int
    name: str | None


@dataclass(frozen=True)
class Helper:
    """Where the helper a call names should be: ``function`` of the module
    ``module`` (relative to ``level``)."""

    module: str | None
    level: int
    function: str


def import_origins(tree: ast.Module) -> dict[str, Origin]:
    """Local name -> what the top-level imports of ``tree`` bind it to
    (imports of :data:`SKIPPED` modules and ``*`` imports left out)."""
    origins: dict[str, Origin] = {}
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom):
            if statement.level == 0 and (statement.module or "").split(".")[0] in SKIPPED:
                continue
            for alias in statement.names:
                if alias.name != "*":
                    origins[alias.asname or alias.name] = Origin(statement.module, statement.level, alias.name)
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.name.split(".")[0] in SKIPPED:
                    continue
                local = alias.asname or alias.name.split(".")[0]
                origins[local] = Origin(alias.name if alias.asname else local, 0, None)
    return origins


def dotted_name(node: ast.expr) -> str | None:
    """``f`` / ``tiles.f`` / ``pkg.tiles.f`` for a chain of names, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted_name(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def helper_of(callee: str, origins: dict[str, Origin]) -> Helper | None:
    """Where the function a call ``callee`` (a dotted name) names lives, when
    its first name is imported; None otherwise."""
    head, *rest = callee.split(".")
    origin = origins.get(head)
    if origin is None:
        return None
    if origin.name is None:  # `import pkg.tiles as tiles`: tiles.f
        if not rest:
            return None
        return Helper(".".join([origin.module or head, *rest[:-1]]), 0, rest[-1])
    if not rest:  # `from pkg.tiles import f`: f
        return Helper(origin.module, origin.level, origin.name)
    parts = [p for p in (origin.module, origin.name, *rest[:-1]) if p]  # `from . import tiles`: tiles.f
    return Helper(".".join(parts), origin.level, rest[-1])


def search_roots(importer: Path, level: int) -> list[Path]:
    """The folders a module imported at ``level`` from file ``importer`` may be under."""
    here = importer.resolve().parent
    if level:
        base = here
        for _ in range(level - 1):
            base = base.parent
        return [base]
    top = here
    while (top / "__init__.py").is_file():
        top = top.parent
    roots = [here, top, *(Path(p) for p in sys.path if p)]
    return list(dict.fromkeys(roots))


def package_of(path: Path) -> str | None:
    """The dotted package a source file belongs to (the folders up the chain
    that have an ``__init__.py``), None for a file outside any package."""
    parts: list[str] = []
    folder = path.resolve().parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts) or None


def absolute_module(package: str | None, level: int, module: str | None) -> str | None:
    """The absolute name of ``from <level dots><module> import ...`` written in
    a module of ``package``; None when the dots climb out of it."""
    if level == 0:
        return module
    parts = package.split(".") if package else []
    if level - 1 >= len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


def module_file(importer: Path, helper: Helper) -> Path | None:
    """The source file of the module ``helper`` lives in, or None."""
    parts = helper.module.split(".") if helper.module else []
    for root in search_roots(importer, helper.level):
        folder = root.joinpath(*parts)
        candidates = [folder.with_suffix(".py")] if parts else []
        candidates.append(folder / "__init__.py")
        for candidate in candidates:
            if candidate.is_file():
                return candidate
    return None


def spelled(helper: Helper) -> str:
    """The module as an import names it: ``.utils``, ``mypkg.helpers``."""
    return "." * helper.level + (helper.module or "")
