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

import functools
import hashlib
import importlib.util
import inspect
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import torch
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp

from syncopate.dialects import tile
from syncopate.dialects.chunk import PlanOp
from syncopate.ir.contract import ABI_ATTR
from syncopate.runtime import module_constants
from syncopate.runtime.autotune import LAUNCH_OPTIONS, ConfigChoice, LaunchHelpers, plain_jit
from syncopate.runtime.descriptors import runtime_params

if TYPE_CHECKING:
    from syncopate.ir.plans.load import PlanSource
    from syncopate.lowering.compile import Pipeline


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
        attr = self.kernel.attributes.get(ABI_ATTR)
        return dict(attr.data) if isinstance(attr, DictionaryAttr) else {}

    @functools.cached_property
    def launch_facts(self) -> LaunchFacts:
        """What every launch needs from the IR, read once (a launch in steady
        state touches no IR object)."""
        from syncopate.ir.contract import CONSUMED
        from syncopate.ir.plans.launch_extents import launch_extents

        plans = {p.sym_name.data: p for p in self.plans}
        abi = self.abi
        tables = abi["tables"].data if "tables" in abi else ()
        pushed = frozenset(e.data["plan"].data for e in tables if e.data["role"].data == "push")
        return LaunchFacts(
            consumed=tuple(n for n, p in plans.items() if p.collective in CONSUMED),
            produced=tuple(n for n, p in plans.items() if p.collective not in CONSUMED and n not in pushed),
            moved=frozenset(t.param.data for p in plans.values() for t in p.tensors),
            shaped=frozenset(e.param for p in plans.values() for e in launch_extents(p, self.kernel.arg_names)),
            fused_reductions=frozenset(e.data["plan"].data for e in tables if e.data["role"].data == "reduce"),
            pushed=pushed,
            spin_limit=abi["spin_limit"].data if "spin_limit" in abi else None,
        )


@dataclass(frozen=True)
class LaunchFacts:
    """A program's plans and ABI as a launch uses them (plain Python values)."""

    consumed: tuple[str, ...]  # plans whose chunks tiles wait for (all-gather, all-to-all, ring-exchange)
    produced: tuple[str, ...]  # plans whose chunks tiles announce to the runtime (reduce-scatter, all-reduce)
    moved: frozenset[str]  # parameters the plans move: their addresses shape the launch tables
    shaped: frozenset[str]  # parameters whose shape is a plan extent (ir/plans/launch_extents.py): it sizes the chunks
    fused_reductions: frozenset[str]  # produced plans the kernel sums in its epilogue
    spin_limit: str | None  # the spin-limit parameter's name, if the kernel has one
    pushed: frozenset[str] = frozenset()  # all-reduce plans the kernel finishes itself (push-all-reduce): not in `produced`


def compile_fused(source_path: str, kernel_name: str, plan_specs: Sequence[PlanSource],
                  pipeline: Pipeline = "overlap", cache_dir: str | None = None) -> FusedProgram:
    """Fuse ``plan_specs`` (spec text, .mlir paths or typed template
    options) into kernel ``kernel_name`` of ``source_path`` through
    ``pipeline`` (``-p`` text or the passes)."""
    from syncopate.lowering.compile import compile_module

    return load_program(compile_module(source_path, kernel_name, plan_specs, pipeline), kernel_name, cache_dir)


def load_program(module: ModuleOp, kernel_name: str, cache_dir: str | None = None) -> FusedProgram:
    """Emit ``module`` (already through the passes) and import its kernel."""
    from syncopate.lowering.triton_emitter import emit_module
    from syncopate.runtime import interpreter_asm

    interpreter_asm.install()  # the helpers' store wait, a no-op where Triton interprets
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
               run: Callable[..., None], options: tuple | None = None) -> Callable[[], bool] | None:
        """Prepare the extra arguments for ``bound`` (the original parameters),
        call ``run(extra_kwargs, launch_grid)`` (``launch_grid`` None: the
        original grid) and finish the launch's communication. ``options``:
        the launch options ``run`` adds (sorted items), by which a world may
        key a replay of the launch; None when ``bound`` does not show every
        argument ``run`` passes. May return a *repeat*: a callable that
        issues the same launch again, for the same arguments, and returns
        False (issuing nothing) once it no longer can."""


REPEATS = 16  # repeats a FusedKernel keeps, by the arguments they were made for (oldest dropped first)
TYPED = frozenset((float, bool, str, type(None)))  # plain argument types a repeat's key holds with their type


def arguments_key(grid: Any, args: tuple, kwargs: Mapping[str, Any]) -> tuple | None:
    """What a repeat is keyed by: the grid and every argument, a tensor by
    its address, shape, strides and dtype (what the launch's tables and
    graphs hold), a plain value by its value, with its type unless it is an
    int (``True``, ``1.0`` and ``1`` are equal and hash alike, but launch
    differently). None where that does not determine the launch: a computed
    grid, or any other argument (a descriptor, a list), whose contents a key
    of its identity would miss. It runs on every eager launch, so the common
    cases are tested first."""
    if not isinstance(grid, (tuple, int)):  # a computed grid, or a list (unhashable)
        return None
    key: list = [grid]
    append = key.append
    for value in (*args, *kwargs.values()):
        kind = type(value)
        if kind is int:
            append(value)
        elif kind in TYPED:
            append((kind, value))
        elif isinstance(value, torch.Tensor):
            append((value.data_ptr(), value.shape, value.stride(), value.dtype))
        else:
            return None
    key += kwargs
    return tuple(key)


def python_function(kernel: Any) -> Any:
    """The Python function under a jit kernel and the decorators that wrap
    it in ``.fn`` (autotune, heuristics); the kernel itself if none is found."""
    fn = kernel
    while not inspect.isfunction(fn) and hasattr(fn, "fn"):
        fn = fn.fn
    return fn


class FusedKernel:
    """Stands in for the original ``@triton.jit`` kernel in ``launch`` code.

    A call binds the arguments to the original parameters by name (a
    precomputed table; ``inspect.Signature.bind`` only to report a bad
    call), asks its :class:`RankContext` for the extra arguments, and
    launches the fused kernel with the caller's own arguments plus those."""

    def __init__(self, program: FusedProgram, original: Any, context: RankContext,
                 choose: ConfigChoice | None = None):
        self.program = program
        self.original = original
        self.context = context
        # The emitted source keeps the original's decorators, but the launch
        # runs the fused plain jit function and applies the decorators of
        # ``original`` itself, as Triton's launch of it would (runtime/autotune.py).
        helpers = LaunchHelpers(original, program.kernel_name, choose)
        self.helpers = helpers if helpers else None
        self.choose = helpers.choose
        self._repeats: dict[tuple, Callable[[], bool]] = {}  # arguments_key -> the context's repeat of that launch
        fn = python_function(original)
        self.signature = inspect.signature(fn)
        params = self.signature.parameters.values()
        self._names = tuple(p.name for p in params)
        self._known = frozenset(self._names)
        self._defaults = tuple((p.name, p.default) for p in params if p.default is not inspect.Parameter.empty)
        self._undefaulted = len(self._names) - len(self._defaults)
        self._simple = all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params)
        self._function = fn
        fused = python_function(program.jit)
        self._constants = module_constants.baked(fn, fused) if inspect.isfunction(fn) and inspect.isfunction(fused) \
            else ()

    def bind(self, args: tuple, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The original parameters' values, defaults included (raises
        TypeError as the original function would on a bad call)."""
        if self._simple and len(args) <= len(self._names):
            params = dict(zip(self._names, args))
            for k, v in kwargs.items():
                if k in params or k not in self._known:
                    break
                params[k] = v
            else:
                for k, v in self._defaults:
                    if k not in params:
                        params[k] = v
                if len(params) == len(self._names):
                    return params
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return dict(bound.arguments)

    @property
    def chosen(self) -> dict[tuple, Any]:
        """The configurations chosen so far, by autotuning key (empty unless
        the original is autotuned)."""
        return {} if self.choose is None else self.choose.chosen

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        def call(*args: Any, **kwargs: Any) -> None:
            if self._constants:
                module_constants.check(self._function, self._constants)
            # a launch repeated with the same arguments replays what its first launches built
            # (heuristics are functions of the arguments; a config choice may not be)
            key = arguments_key(grid, args, kwargs) if self.choose is None else None
            if key is not None:
                repeat = self._repeats.get(key)
                if repeat is not None:
                    if repeat():
                        return
                    del self._repeats[key]
            jit, config = plain_jit(self.program.jit), None  # read per launch: the program's jit may be replaced
            if self.helpers is not None:
                kwargs, options, config = self.helpers.resolve(grid, args, kwargs)
            else:
                options = {k: kwargs.pop(k) for k in LAUNCH_OPTIONS & kwargs.keys()} if kwargs else {}
            params = self.bind(args, kwargs)
            g = grid(params) if callable(grid) else grid
            g = tuple(int(x) for x in (g if isinstance(g, (tuple, list)) else (g,)))

            # The fused kernel adds its parameters before the user's defaulted
            # ones (Python needs those last): a defaulted parameter given by
            # position would land on an added one, so such a call goes by name.
            by_name = len(args) > self._undefaulted

            def run(extra: dict[str, Any], launch_grid: tuple[int, ...] | None = None) -> None:
                if by_name:
                    jit[launch_grid or g](**params, **extra, **options)
                else:
                    jit[launch_grid or g](*args, **kwargs, **extra, **options)

            seen = runtime_params(params, self.program.launch_facts.moved)
            # a descriptor's own shape and strides are not in the runtime's view of it
            replay_options = tuple(sorted(options.items())) if seen is params else None
            if config is not None and config.pre_hook is not None:
                # as Triton's autotuner does before the chosen config's launch (zeroing a split-K
                # output, say): on the caller's stream, which the launch's communication follows
                config.pre_hook({**params, **config.all_kwargs()})
            repeat = self.context.launch(self.program, g, seen, run, replay_options)
            if repeat is not None and key is not None:
                if len(self._repeats) >= REPEATS:
                    self._repeats.pop(next(iter(self._repeats)))
                self._repeats[key] = repeat

        return call
