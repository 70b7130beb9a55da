"""Analyses computed once per pipeline run, invalidated by the passes that
change what they depend on.

This is MLIR's analysis manager, kept small. An *analysis* is a function of
the module (``chunk_access.analyze``); passes ask for its result with
:func:`query` instead of calling it. While a pipeline runs on a module (see
:func:`pipeline_run`, opened by the drivers in ``passes/pipeline.py``), the
first query computes the result and later queries reuse it. After each pass
the driver drops every result the pass does not declare preserved:

* a pass declares ``preserved_analyses``, a tuple of the analyses whose
  facts it leaves true (or :data:`ALL` when it changed nothing), as a class
  attribute or, when that depends on its options, a property;
* a pass that declares nothing (every xDSL pass, such as ``cse``)
  preserves nothing, so a pass that rewrites what an analysis reads can
  never leave a later pass with stale facts by forgetting to say so.

Outside a pipeline run (a pass applied by hand, a test calling ``apply``)
:func:`query` computes the analysis afresh each time, which is always right.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from xdsl.dialects.builtin import ModuleOp

T = TypeVar("T")
Analysis = Callable[[ModuleOp], Any]
"""A function of the module whose result passes share."""


class _All:
    """The marker of a pass that preserves every analysis (it changed nothing)."""

    def __repr__(self) -> str:
        return "ALL"


ALL = _All()
"""``preserved_analyses = ALL``: the pass left the module as it found it."""


class AnalysisManager:
    """The analysis results of one module during one pipeline run."""

    def __init__(self, module: ModuleOp) -> None:
        self.module = module
        self._results: dict[Analysis, Any] = {}

    def get(self, analysis: Callable[[ModuleOp], T]) -> T:
        """The result of ``analysis`` on the module, computed on first use."""
        if analysis not in self._results:
            self._results[analysis] = analysis(self.module)
        return self._results[analysis]

    def after_pass(self, pass_: object) -> None:
        """Drop the results ``pass_`` (which just ran) does not preserve."""
        preserved = preserved_analyses(pass_)
        if preserved is ALL:
            return
        for analysis in [a for a in self._results if a not in preserved]:
            del self._results[analysis]


def preserved_analyses(pass_: object) -> tuple[Analysis, ...] | _All:
    """The analyses ``pass_`` declares preserved (none unless it says so)."""
    return getattr(pass_, "preserved_analyses", ())


# The managers of the pipeline runs in progress, by module. Keyed by identity:
# a run belongs to one module object, and a module is never copied mid-run.
_active: dict[int, AnalysisManager] = {}


@contextmanager
def pipeline_run(module: ModuleOp) -> Iterator[AnalysisManager]:
    """Share analysis results between the passes run on ``module`` inside
    the block. Nested runs on the same module (the ``overlap`` pass inside
    an ``overlap-opt`` pipeline) share the outer run's manager."""
    outer = _active.get(id(module))
    if outer is not None and outer.module is module:
        yield outer
        return
    manager = AnalysisManager(module)
    _active[id(module)] = manager
    try:
        yield manager
    finally:
        del _active[id(module)]


def query(module: ModuleOp, analysis: Callable[[ModuleOp], T]) -> T:
    """The result of ``analysis`` on ``module``: shared within a pipeline
    run, computed afresh outside one."""
    manager = _active.get(id(module))
    if manager is None or manager.module is not module:
        return analysis(module)
    return manager.get(analysis)
