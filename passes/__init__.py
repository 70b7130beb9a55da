"""syncopate.passes: the registry of this project's passes.

A pass is a `ModulePass` subclass in its own module of this package, with a
`name` and a docstring whose first line is its one-line summary (shown by
`overlap-opt --help`). Add it to `PASSES` below (under its `name`) and give it
a lit folder `test/<name>/`.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable

from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError

# pass name -> (module of this package, class name). Only the modules of the
# passes a pipeline names are imported, so the tools start fast.
PASSES: dict[str, tuple[str, str]] = {
    "specialize": ("specialize", "SpecializePass"),
    "chunk-dependency-analysis": ("chunk_dependency_analysis", "ChunkDependencyAnalysisPass"),
    "insert-signals": ("insert_signals", "InsertSignalsPass"),
    "lower-chunk-to-tile": ("lower_chunk_to_tile", "LowerChunkToTilePass"),
    "tile-reorder": ("tile_reorder", "TileReorderPass"),
    "select-backend": ("select_backend", "SelectBackendPass"),
    "fuse-peer-reduction": ("fuse_peer_reduction", "FusePeerReductionPass"),
    "push-all-reduce": ("push_all_reduce", "PushAllReducePass"),
    "verify-sync": ("verify_sync", "VerifySyncPass"),
    "verify-addresses": ("verify_addresses", "VerifyAddressesPass"),
    "overlap": ("overlap_pipeline", "OverlapPipelinePass"),
}

# xDSL passes that make sense on tile IR too, with the summary --help shows
# (xDSL's own docstrings are missing or describe other dialects). Each has a
# lit folder test/<name>/ too: it pins what the pass does to tile ops.
XDSL_PASSES: dict[str, str] = {
    "canonicalize": "Fold constants and apply the dialects' canonicalization patterns (xDSL).",
    "cse": "Merge identical side-effect-free ops (common subexpression elimination, xDSL).",
    "dce": "Erase ops whose results are unused and that have no side effects (xDSL).",
}


def _loader(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(importlib.import_module(f"syncopate.passes.{module}"), cls)

    return load


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory, this project's passes plus a few of xDSL's."""
    from xdsl.universe import Universe

    xdsl_passes = Universe.get_multiverse().all_passes
    passes = {name: xdsl_passes[name] for name in XDSL_PASSES if name in xdsl_passes}
    for name, (module, cls) in PASSES.items():
        passes[name] = _loader(module, cls)
    return passes


class PipelineError(ValueError):
    """A ``-p`` pipeline spec that does not parse, names an unknown pass, or
    gives a pass an unknown option or value: a usage error of the tools."""


def parse_pipeline(spec: str, callback=None) -> PassPipeline:
    """The :class:`PassPipeline` of ``spec`` (overlap-opt's ``-p`` syntax);
    raises :class:`PipelineError` with a one-line message otherwise.

    xDSL reports a malformed spec with an ``ArgSpecParseError``, a
    ``BaseException`` that would escape every ``except Exception``, over
    several lines; it becomes one line naming the column."""
    try:
        return PassPipeline.parse_spec(get_all_passes(), spec, callback)
    except ArgSpecParseError as err:
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        column = lines[1].rsplit(":", 1)[-1] if len(lines) > 1 else "?"
        raise PipelineError(f"pipeline '{spec}': {lines[-1]} (column {column})") from None
    except ValueError as err:
        raise PipelineError(f"pipeline '{spec}': {err}") from None


def summary(pass_class: type[ModulePass]) -> str:
    """The one-line summary of a pass: its docstring's first line (ours) or
    the :data:`XDSL_PASSES` entry (xDSL's)."""
    if pass_class.name in XDSL_PASSES:
        return XDSL_PASSES[pass_class.name]
    doc = inspect.cleandoc(pass_class.__dict__.get("__doc__") or "")
    return doc.partition("\n")[0].strip()
