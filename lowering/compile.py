"""The compiler driver: Triton source + plans -> fused tile IR.

The runtime compiles through this module, so it depends on the compiler's
entry points (frontend, plan loading, the pass pipeline), never on a pass
module itself. Plans and the pipeline come as text (what ``--plan`` and
``-p`` take) or typed (template options, pass objects) from callers that
build them in Python; the typed ones never go through a string.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from syncopate.ir.context import make_context
from syncopate.ir.contract import KERNEL_ATTR
from syncopate.ir.frontend.triton_import import import_source_files
from syncopate.ir.plans.cli import load_plans
from syncopate.passes import parse_pipeline
from syncopate.passes.pipeline import apply_passes

if TYPE_CHECKING:
    from syncopate.ir.plans.load import PlanSource

Pipeline = str | ModulePass | Sequence[ModulePass]
"""A pass pipeline: overlap-opt's ``-p`` text, or the pass (or passes) itself."""


def run_pipeline(module: ModuleOp, pipeline: Pipeline) -> None:
    """Run the pass pipeline ``pipeline`` (overlap-opt's ``-p`` syntax, or
    the passes) on ``module``."""
    if isinstance(pipeline, str):
        passes: Sequence[ModulePass] = parse_pipeline(pipeline).passes
    else:
        passes = (pipeline,) if isinstance(pipeline, ModulePass) else tuple(pipeline)
    apply_passes(passes, make_context(), module)


def compile_module(source_path: str, kernel_name: str, plan_specs: Sequence[PlanSource],
                   pipeline: Pipeline = "overlap") -> ModuleOp:
    """Import ``source_path``, attach ``plan_specs`` and run ``pipeline``; the
    module names ``kernel_name`` as the kernel to fuse (the file may hold others)."""
    return compile_module_files(source_path, kernel_name, plan_specs, pipeline)[0]


def compile_module_files(source_path: str, kernel_name: str, plan_specs: Sequence[PlanSource],
                         pipeline: Pipeline = "overlap") -> tuple[ModuleOp, tuple[str, ...]]:
    """:func:`compile_module`, plus the source files the import read (a
    cached result is valid while their text is unchanged)."""
    module, files = import_source_files(Path(source_path).read_text(), str(source_path), kernel_name)
    module.attributes[KERNEL_ATTR] = StringAttr(kernel_name)
    for plan in load_plans(list(plan_specs), make_context()):
        module.body.block.add_op(plan)
    run_pipeline(module, pipeline)
    return module, files
