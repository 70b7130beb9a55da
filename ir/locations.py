"""Source locations of tile-IR ops, for error messages.

The frontend gives every op it builds the ``FileLineColLoc`` of the Python
statement it came from (``op.location``; printed only with
``--print-debuginfo``). IR parsed from text without locations, or ops a pass
created, have ``UnknownLoc``; :func:`describe` then falls back to the op's
position in its function so an error still points somewhere.
"""

from __future__ import annotations

from pathlib import Path

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation


def source_line(op: Operation) -> str | None:
    """``file.py:LINE`` of ``op`` (file name without its folders), or None."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{Path(loc.filename.data).name}:{loc.line.data}"
    return None


def describe(op: Operation) -> str:
    """``file.py:12: 'tile.load'``, or ``'tile.load' (op #7 of @kernel)``
    when the op has no source location."""
    line = source_line(op)
    if line is not None:
        return f"{line}: '{op.name}'"
    func = op
    while func.parent_op() is not None and func.parent_op().name != "builtin.module":
        func = func.parent_op()  # type: ignore[assignment]
    name = func.properties.get("sym_name")
    index = next((i for i, o in enumerate(func.walk()) if o is op), 0)
    owner = f" of @{name.data}" if name is not None else ""  # type: ignore[union-attr]
    return f"'{op.name}' (op #{index}{owner})"
