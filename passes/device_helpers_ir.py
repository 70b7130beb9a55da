"""The tile IR of lowering/device_helpers.py, imported once with the frontend.

The helpers are Triton source (the runtime calls some of them directly), so
this module reads that file as data rather than importing it: the passes
that call the helpers need their IR, not the jit functions (nor Triton).
The file is found through the import system by its module name, which the
layering test reads as this module's one edge into lowering/ (a listed
exception there).
"""

from __future__ import annotations

import functools
import importlib.util

from syncopate.dialects import tile
from syncopate.ir.frontend.triton_import import import_source

HELPERS_SOURCE = importlib.util.find_spec("syncopate.lowering.device_helpers").origin


@functools.cache
def _module():
    with open(HELPERS_SOURCE) as f:
        return import_source(f.read(), "device_helpers.py")


def helper_funcs() -> dict[str, tile.FuncOp]:
    """Helper name -> its tile.func (clone before inserting anywhere)."""
    return {f.sym_name.data: f for f in _module().ops if isinstance(f, tile.FuncOp)}
