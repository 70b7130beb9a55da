"""Run passes in one pipeline run: analyses are shared between them.

Every driver of passes goes through :func:`apply_passes` (the ``overlap``
pass for its stages, ``overlap-opt``, the runtime's compiler driver), so an
analysis a pass queries (``ir/analysis/manager.py``) is computed once and
dropped after each pass that does not declare it preserved.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline, PassPipelineCallbackType

from syncopate.ir.analysis.manager import pipeline_run


def apply_passes(passes: Sequence[ModulePass], ctx: Context, module: ModuleOp,
                 callback: PassPipelineCallbackType | None = None) -> None:
    """Apply ``passes`` to ``module`` in order, sharing analyses; ``callback``
    runs between passes as in xDSL's ``PassPipeline`` (after the
    invalidation, so a verifier it runs sees the module the next pass gets)."""
    with pipeline_run(module) as analyses:

        def between(previous: ModulePass | None, op: ModuleOp, following: ModulePass | None) -> None:
            if previous is not None:
                analyses.after_pass(previous)
            if callback is not None:
                callback(previous, op, following)

        PassPipeline(tuple(passes), between).apply(ctx, module)
