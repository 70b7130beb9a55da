"""syncopate.passes: the registry of this project's passes.

A pass is a `ModulePass` subclass in its own module of this package, with a
`name` and a docstring whose first line is its one-line summary (shown by
`overlap-opt --help`). Add it to `PASS_MODULES` below and give it a lit
folder `test/<name>/`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.passes import ModulePass

# module name -> class name, imported lazily so the driver starts fast.
PASS_MODULES: dict[str, str] = {
    "specialize": "SpecializePass",
    "chunk_dependency_analysis": "ChunkDependencyAnalysisPass",
    "insert_signals": "InsertSignalsPass",
    "lower_chunk_to_tile": "LowerChunkToTilePass",
    "tile_reorder": "TileReorderPass",
    "select_backend": "SelectBackendPass",
    "fuse_peer_reduction": "FusePeerReductionPass",
    "overlap_pipeline": "OverlapPipelinePass",
}

# xDSL passes that make sense on tile IR too.
XDSL_PASSES = ("canonicalize", "cse", "dce")


def _loader(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(importlib.import_module(f"syncopate.passes.{module}"), cls)

    return load


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory, this project's passes plus a few of xDSL's."""
    from xdsl.universe import Universe

    xdsl_passes = Universe.get_multiverse().all_passes
    passes = {name: xdsl_passes[name] for name in XDSL_PASSES if name in xdsl_passes}
    for module, cls in PASS_MODULES.items():
        pass_class = _loader(module, cls)()
        passes[pass_class.name] = _loader(module, cls)
    return passes
