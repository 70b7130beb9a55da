"""The tile IR of lowering/sync_helpers.py, imported once with the frontend."""

from __future__ import annotations

import functools
import os

from syncopate.dialects import tile


@functools.cache
def _module():
    from syncopate.ir.frontend import import_source

    path = os.path.join(os.path.dirname(__file__), "sync_helpers.py")
    with open(path) as f:
        return import_source(f.read(), "sync_helpers.py")


def helper_funcs() -> dict[str, tile.FuncOp]:
    """Helper name -> its tile.func (clone before inserting anywhere)."""
    return {f.sym_name.data: f for f in _module().ops if isinstance(f, tile.FuncOp)}
