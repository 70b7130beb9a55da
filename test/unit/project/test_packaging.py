"""pyproject.toml lists every package folder, and nothing else: a folder
missing from the list is left out of a non-editable install (the GPU
machines install that way), and a listed folder that does not exist breaks
every install."""

from __future__ import annotations

import os
import tomllib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SKIP = {"test", "examples", "docs", ".venv", ".whl", ".git", "build"}


def _package_folders() -> set[str]:
    found = {"syncopate"}
    for dirpath, dirnames, filenames in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        dirnames[:] = [d for d in dirnames if not (rel == "." and d in SKIP) and not d.startswith((".", "__"))]
        if rel != "." and "__init__.py" in filenames:
            found.add("syncopate." + rel.replace(os.sep, "."))
    return found


def test_pyproject_lists_exactly_the_package_folders():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        listed = set(tomllib.load(f)["tool"]["setuptools"]["packages"])
    folders = _package_folders()
    assert listed - folders == set(), "listed in pyproject.toml but no such package folder"
    assert folders - listed == set(), "package folders missing from pyproject.toml's packages"
