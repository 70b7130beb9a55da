"""Compile a kernel + plans into a fused kernel, and launch it like the original.

:func:`compile_fused` runs the frontend, attaches the plans, runs the
``overlap`` pipeline and emits Triton source, which it writes next to a cache
directory and imports (Triton's jit needs a real file). :class:`FusedKernel`
is what a workload's ``launch`` receives instead of the original kernel:
``fused[grid](*args)`` binds the original parameters, asks its
:class:`RankContext` (simulated or GPU world) for the extra arguments
(signal pad, chunk tables, epoch, tile order) and launches.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from xdsl.dialects.builtin import DictionaryAttr, ModuleOp
from xdsl.passes import PassPipeline

from syncopate.dialects import tile
from syncopate.dialects.chunk import PlanOp


@dataclass
class FusedProgram:
    """The result of one compilation."""

    module: ModuleOp  # IR after the pipeline (plans with backends, chunk.abi, footprints)
    source: str  # emitted Triton
    path: str  # file the source was written to
    kernel_name: str
    jit: Any  # the fused @triton.jit function

    @property
    def kernel(self) -> tile.FuncOp:
        return next(f for f in self.module.ops if isinstance(f, tile.FuncOp) and f.sym_name.data == self.kernel_name)

    @property
    def plans(self) -> list[PlanOp]:
        return [p for p in self.module.ops if isinstance(p, PlanOp)]

    @property
    def abi(self) -> dict[str, Any]:
        attr = self.kernel.attributes.get("chunk.abi")
        return dict(attr.data) if isinstance(attr, DictionaryAttr) else {}


def run_pipeline(module: ModuleOp, pipeline: str) -> None:
    from syncopate.ir.context import make_context
    from syncopate.passes import get_all_passes

    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(make_context(), module)


def compile_fused(source_path: str, kernel_name: str, plan_specs: Sequence[str], pipeline: str = "overlap",
                  cache_dir: str | None = None) -> FusedProgram:
    """Fuse ``plan_specs`` into kernel ``kernel_name`` of ``source_path``."""
    from syncopate.ir.context import make_context
    from syncopate.ir.frontend import import_file
    from syncopate.ir.plans.cli import load_plans

    module = import_file(source_path)
    for plan in load_plans(list(plan_specs), make_context()):
        module.body.block.add_op(plan)
    run_pipeline(module, pipeline)
    return load_program(module, kernel_name, cache_dir)


def load_program(module: ModuleOp, kernel_name: str, cache_dir: str | None = None) -> FusedProgram:
    """Emit ``module`` (already through the passes) and import its kernel."""
    from syncopate.lowering.triton_emitter import emit_module

    source = emit_module(module)
    digest = hashlib.sha1(source.encode()).hexdigest()[:16]
    directory = cache_dir or os.path.join(tempfile.gettempdir(), "syncopate-fused")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"fused_{kernel_name}_{digest}.py")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"  # ranks of one torchrun job compile at the same time
        with open(tmp, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(f"syncopate_fused_{digest}", path)
    assert spec is not None and spec.loader is not None
    py_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(py_module)
    return FusedProgram(module, source, path, kernel_name, getattr(py_module, kernel_name))


class RankContext(Protocol):
    """What a world gives one launch on one rank."""

    def launch(self, program: FusedProgram, grid: tuple[int, ...], bound: Mapping[str, Any],
               run: Callable[..., None]) -> None:
        """Prepare the extra arguments for ``bound`` (the original parameters),
        call ``run(extra_kwargs, launch_grid)`` (``launch_grid`` None: the
        original grid) and finish the launch's communication."""


class FusedKernel:
    """Stands in for the original ``@triton.jit`` kernel in ``launch`` code."""

    def __init__(self, program: FusedProgram, original: Any, context: RankContext):
        self.program = program
        self.original = original
        self.context = context
        fn = getattr(original, "fn", original)
        self.signature = inspect.signature(fn)

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        def call(*args: Any, **kwargs: Any) -> None:
            launch_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in ("num_warps", "num_stages", "num_ctas")}
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            params = dict(bound.arguments)
            g = grid(params) if callable(grid) else grid
            g = tuple(int(x) for x in (g if isinstance(g, (tuple, list)) else (g,)))

            def run(extra: dict[str, Any], launch_grid: tuple[int, ...] | None = None) -> None:
                # every parameter by name: the fused kernel adds its own before
                # the user's defaulted ones, so positions no longer line up
                self.program.jit[launch_grid or g](**params, **extra, **launch_kwargs)

            self.context.launch(self.program, g, params, run)

        return call
