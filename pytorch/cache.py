"""On-disk cache of compile results, so a second process does not recompile.

A compile result is the IR after the pipeline (printed MLIR text); loading
it parses the text and emits Triton again, which costs a fraction of
running the passes. The key is a SHA-256 of everything the result depends
on: the kernel's source file, the kernel name, the plan specs, the
pipeline, syncopate's version and the text of syncopate's compiler sources
(dialects, frontend, passes, lowering), so editing the compiler
invalidates old entries instead of loading stale IR. Beside each entry a
``.sources`` file lists every source file the import read (the kernel's
and the modules of its jit helpers) with the SHA-256 of its text; an entry
whose listed files changed, moved or are missing is a miss, so editing an
imported helper recompiles.

The directory is ``$SYNCOPATE_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/syncopate`` (``~/.cache/syncopate``). Writes go through a
temporary file and a rename: the ranks of one job compile at the same time.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp

CACHE_ENV = "SYNCOPATE_CACHE_DIR"
COMPILER_DIRS = ("dialects", "ir", "passes", "lowering")  # sources whose edits change a compile result


def cache_dir() -> str:
    """Where compile results live (created on first use)."""
    if os.environ.get(CACHE_ENV):
        return os.environ[CACHE_ENV]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "syncopate")


@functools.cache
def compiler_digest() -> str:
    """A digest of syncopate's version and compiler sources (computed once per process)."""
    from syncopate import __version__

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # syncopate's folder
    h = hashlib.sha256(__version__.encode())
    for sub in COMPILER_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, sub)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(".py"):
                    path = os.path.join(dirpath, name)
                    h.update(os.path.relpath(path, root).encode())
                    with open(path, "rb") as f:
                        h.update(f.read())
    return h.hexdigest()


def cache_key(source: str, kernel_name: str, plan_specs: Sequence[str], pipeline: str) -> str:
    """The key of one compilation: ``source`` is the kernel file's text."""
    h = hashlib.sha256()
    for part in (compiler_digest(), source, kernel_name, "\0".join(plan_specs), pipeline):
        h.update(part.encode())
        h.update(b"\1")
    return h.hexdigest()[:32]


def entry_path(key: str, kernel_name: str) -> str:
    return os.path.join(cache_dir(), f"{kernel_name}-{key}.mlir")


def _digest(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def sources_unchanged(entry: str) -> bool:
    """Whether every source file listed beside ``entry`` still has the text it was compiled from."""
    try:
        with open(f"{entry}.sources") as f:
            listed = json.load(f)
    except (OSError, ValueError):
        return False
    return isinstance(listed, dict) and all(_digest(p) == d for p, d in listed.items())


def load(key: str, kernel_name: str) -> ModuleOp | None:
    """The cached IR of ``key``, or None (missing, unreadable, or compiled
    from source files that changed since: recompile)."""
    from xdsl.parser import Parser

    from syncopate.ir.context import make_context

    path = entry_path(key, kernel_name)
    if not os.path.exists(path) or not sources_unchanged(path):
        return None
    try:
        with open(path) as f:
            return Parser(make_context(), f.read(), path).parse_module()
    except Exception:  # a truncated or foreign file is a miss, never an error
        return None


def store(key: str, kernel_name: str, module: ModuleOp, sources: Sequence[str]) -> str:
    """Write ``module`` (after the pipeline) under ``key``, and the digests of
    the ``sources`` it was compiled from beside it; returns the path."""
    from xdsl.printer import Printer

    text = io.StringIO()
    Printer(stream=text).print_op(module)
    path = entry_path(key, kernel_name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    digests = {os.path.abspath(p): _digest(p) for p in sources}
    _write(f"{path}.sources", json.dumps(digests, indent=1, sort_keys=True))  # first: an entry is never unguarded
    _write(path, text.getvalue())
    return path


def _write(path: str, text: str) -> None:
    """Through a temporary file and a rename: the ranks of one job write at once."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
