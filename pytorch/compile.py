"""``syncopate.compile``: fuse plans into a ``@triton.jit`` kernel inside a
``torch.distributed`` program.

The kernel's source file is read (as ``overlap-run`` does with a workload),
the plans get ``world=`` from the process group, and the compile result
(the IR after the pipeline) is cached on disk (pytorch/cache.py): a second
process start parses it instead of running the passes.

The returned :class:`~syncopate.runtime.fused.FusedKernel` launches with the
original syntax, ``fused[grid](*args, **constexprs)``. Each launch goes to
the world of its tensors' device: the GPU world for CUDA tensors in an NCCL
group, else :class:`~syncopate.pytorch.unfused_rank.UnfusedRank` (the
collective done with torch.distributed around the kernel).

Gathered tensors and ordinary tensors: on the GPU world, the tensor an
all-gather (or all-to-all) plan moves is read from peers, so it must be a
symmetric buffer from :func:`syncopate.empty`. An ordinary tensor there is
refused with an error naming the argument; it is not copied behind the
caller's back, since such a copy would be a full extra pass over the tensor
on every launch.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from syncopate.pytorch import cache
from syncopate.pytorch.op_stats import LOG
from syncopate.pytorch.worlds import (
    SyncopateSetupError,
    gpu_world,
    is_symmetric,
    resolve_group,
    uses_gpu_world,
)


def compile(kernel: Any, plans: Sequence[Any], pipeline: str = "overlap", kernel_name: str | None = None,
            group: Any = None) -> Any:
    """Fuse ``plans`` into ``kernel`` for the ranks of ``group``.

    ``kernel``: the single-GPU ``@triton.jit`` function, unchanged. ``plans``:
    plan specs as for ``overlap-opt --plan``, without ``world=`` (added from
    the group's size), e.g. ``["all-gather{tensor=a_ptr dim=0}"]``;
    ``tensor=`` names the kernel's pointer parameter. Code that builds a
    plan passes the typed form instead
    (``syncopate.ir.plans.templates.template``, its ``world`` the group's size). ``pipeline``: the
    ``overlap-opt`` pipeline (default ``overlap``; options as
    ``overlap{backend=sm}``). ``kernel_name``: the kernel's name in its file
    (default: the function's own name). ``group``: the
    ``torch.distributed`` process group (default: the default group).

    Returns a kernel launched exactly like the original, ``fused[grid](...)``;
    for an ``@triton.autotune`` kernel the original's autotuner picks the
    configuration (pytorch/autotuned.py), and ``@triton.heuristics`` values
    are computed from each launch's arguments (runtime/autotune.py).
    Every rank of ``group`` must call ``compile`` and launch the same
    configurations in the same order. Compile results are cached on disk
    (``$SYNCOPATE_CACHE_DIR``, default ``~/.cache/syncopate``).
    Raises :class:`SyncopateSetupError` without an initialized process group;
    plan and frontend errors name the file and line.
    """
    import torch.distributed as dist

    from syncopate.runtime.fused import FusedKernel, load_program

    group = resolve_group(group)
    world, rank = dist.get_world_size(group), dist.get_rank(group)
    fn = _python_function(kernel)
    name = kernel_name or fn.__name__
    path = inspect.getsourcefile(fn)
    if path is None:
        raise SyncopateSetupError(f"syncopate.compile: the source of kernel '{name}' is not in a file")
    with open(path) as f:
        source = f.read()
    specs = [_with_world(p, world) for p in plans]
    texts = [s if isinstance(s, str) else repr(s) for s in specs]  # a typed plan's repr names every option
    key = cache.cache_key(source, name, texts, pipeline)
    start = time.perf_counter()
    module = cache.load(key, name)
    hit = module is not None
    if module is None:
        module, files = _run_frontend(path, name, specs, pipeline)
        cache.store(key, name, module, files)
    LOG.info("syncopate.compile %s (%s, %s): %s in %.2f s", name, "; ".join(texts), pipeline,
             "loaded from the cache" if hit else "compiled", time.perf_counter() - start)
    program = load_program(module, name, cache.cache_dir())
    context = GroupContext(group, rank, _gathered_params(program))
    from syncopate.pytorch.autotuned import BenchmarkedConfig
    from syncopate.runtime.autotune import autotuner_of

    # the decorators of ``kernel`` (autotune, heuristics) apply to each launch as
    # FusedKernel applies them for a workload; only the config choice differs
    autotuner = autotuner_of(kernel)
    choose = None if autotuner is None else BenchmarkedConfig(autotuner, group)
    return FusedKernel(program, kernel, context, choose)


def _with_world(plan: Any, world: int) -> Any:
    """A plan spec with ``world=`` added; a typed plan (``ir.plans.templates.template``) checked to be for ``world``."""
    from syncopate.runtime.harness.workload import with_world

    if isinstance(plan, str):
        return with_world(plan, world)
    if plan.world != world:
        raise SyncopateSetupError(f"syncopate.compile: the {plan.kind} plan of '{plan.tensor}' is for world={plan.world}, "
                                  f"but the group has {world} ranks")
    return plan


def _python_function(kernel: Any) -> Callable[..., Any]:
    """The Python function under ``@triton.jit`` (and any decorator that keeps it in ``.fn``)."""
    from syncopate.runtime.fused import python_function

    fn = python_function(kernel)
    if not inspect.isfunction(fn):
        raise SyncopateSetupError(f"syncopate.compile: {kernel!r} is not a @triton.jit kernel")
    return fn


def _run_frontend(path: str, name: str, specs: list[str], pipeline: str) -> tuple[Any, tuple[str, ...]]:
    """The compiler driver's own compile of kernel ``name`` (the file may
    hold others), and the source files it read."""
    from syncopate.lowering.compile import compile_module_files

    return compile_module_files(path, name, specs, pipeline)


def _gathered_params(program: Any) -> tuple[str, ...]:
    """Parameters peers read directly (consumed plans with ce or sm chunks):
    on the GPU world they must be symmetric buffers."""
    from syncopate.ir.contract import CONSUMED

    names = []
    for plan in program.plans:
        if plan.collective in CONSUMED and any(c.backend.data in ("ce", "sm") for c in plan.chunks):
            names.extend(t.param.data for t in plan.tensors)
    return tuple(dict.fromkeys(names))


@dataclass
class GroupContext:
    """The :class:`~syncopate.runtime.fused.RankContext` of a compiled kernel:
    sends each launch to the world of its tensors' device."""

    group: Any
    rank: int
    gathered: tuple[str, ...]
    unfused: Any = None
    gpu: Any = None
    checked: set[tuple] = field(default_factory=set)  # (parameter, address) already found symmetric
    routes: dict[torch.device, bool] = field(default_factory=dict)  # device -> launches go to the GPU world

    def launch(self, program: Any, grid: tuple[int, ...], params: Mapping[str, Any],
               run: Callable[..., None], options: tuple | None = None) -> None:
        device = next((v.device for v in params.values() if isinstance(v, torch.Tensor)), torch.device("cpu"))
        gpu = self.routes.get(device)
        if gpu is None:  # asked once per device: a launch's own work stays table lookups
            gpu = self.routes[device] = uses_gpu_world(self.group, device)
        if gpu:
            for name in self.gathered:
                self._check_symmetric(program, name, params.get(name))
            if self.gpu is None:
                self.gpu = gpu_world(self.group).context()
            self.gpu.launch(program, grid, params, run, options)
            return
        if self.unfused is None:
            from syncopate.pytorch.unfused_rank import UnfusedRank

            self.unfused = UnfusedRank(self.group, self.rank)
        self.unfused.launch(program, grid, params, run)

    def _check_symmetric(self, program: Any, name: str, tensor: Any) -> None:
        if not isinstance(tensor, torch.Tensor) or (name, tensor.data_ptr()) in self.checked:
            return
        if not is_symmetric(tensor, self.group):
            raise SyncopateSetupError(
                f"kernel '{program.kernel_name}': argument '{name}' is gathered from peers and must be a symmetric "
                "buffer: allocate it with syncopate.empty(...) and write this rank's rows into it (an ordinary "
                "tensor is refused, not copied: the copy would be an extra pass over the tensor on every launch)"
            )
        self.checked.add((name, tensor.data_ptr()))
