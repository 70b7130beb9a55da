"""Spellings of ``triton.language`` objects."""

from __future__ import annotations

from syncopate.dialects.python_grammar import TL_CORE_NAMES, TL_STANDARD_NAMES

TL = "triton.language"

# Names that `triton.language.core` / `triton.language.standard` define and
# `triton.language` re-exports as the same object (Triton 3.6 to 3.9):
# `tl.core.load`, `tlc.load` after `import triton.language.core as tlc`, or
# `from triton.language.core import load` are `tl.load`, so they import as the
# same op (anything else of those modules stays a generic call as written).
SAME_AS_TL = {f"{TL}.core": TL_CORE_NAMES, f"{TL}.standard": TL_STANDARD_NAMES}


def canonical_path(path: str) -> str:
    """``triton.language.core.load`` -> ``triton.language.load`` (see ``SAME_AS_TL``)."""
    module, _, name = path.rpartition(".")
    return f"{TL}.{name}" if name in SAME_AS_TL.get(module, ()) else path
