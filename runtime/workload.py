"""Workload files: the single-GPU program plus what each rank holds.

A workload is a Python module (``examples/*.py``) that ``overlap-run`` loads.
It contains the kernel and its launch code exactly as in the single-GPU
program, plus the per-rank inputs and which tensor the collective moves:

``KERNEL``
    the ``@triton.jit`` kernel (unchanged single-GPU code), defined in the
    workload file or imported from another module: syncopate reads the
    source of the file that defines it.
``PLANS``
    a list of plan specs without ``world`` (``overlap-run`` adds
    ``world=W``), e.g. ``["all-gather{tensor=a_ptr dim=0}"]``; or a function
    ``PLANS(world) -> list[str]`` when the plan depends on W (all-to-all
    splits). ``tensor=`` names the kernel's pointer parameter.
``COLLECTIVES``
    ``{kernel pointer parameter: launch argument name}``, e.g.
    ``{"a_ptr": "a"}``: which argument of ``launch`` holds the tensor that
    plan moves.
``make_inputs(rank, world, seed) -> dict``
    what rank ``rank`` holds before the collective, as keyword arguments of
    ``launch`` (tensors and ints). Fresh random values (never zeros) from
    ``seed``. For an all-gather input: the rank's shard (its rows of the
    gathered dim, see :func:`shard_bounds`); for an all-to-all input: the
    rank's send buffer, the block for rank 0 first; a reduce-scatter tensor is
    launch's output and is not an input.
``launch(kernel, **inputs) -> torch.Tensor``
    the single-GPU program: allocate the output, launch ``kernel[grid](...)``
    and return the output. ``overlap-run`` calls it with the original kernel
    (reference) and with the fused kernel.

Semantics per collective (the reference ``overlap-run`` compares with):

* all-gather on dim d: ``launch`` receives the concatenation of every rank's
  shard along d;
* all-to-all: ``launch`` receives the concatenation, over source ranks, of
  the block each source sent to this rank;
* reduce-scatter on dim d: the tensor is ``launch``'s output; rank r's result
  is its slice of the sum of every rank's output.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

REQUIRED = ("KERNEL", "PLANS", "COLLECTIVES", "make_inputs", "launch")


class WorkloadError(Exception):
    """A workload file that does not follow the convention."""


def shard_bounds(total: int, world: int, rank: int) -> tuple[int, int]:
    """(start, size) of rank's shard of ``total`` rows, as plan templates with
    a symbolic size cut it: ``total // world`` each, the last rank the rest."""
    q = total // world
    start = rank * q
    return start, (total - start if rank == world - 1 else q)


@dataclass
class Workload:
    """A loaded workload module."""

    path: str
    module: ModuleType

    @property
    def name(self) -> str:
        return os.path.splitext(os.path.basename(self.path))[0]

    @property
    def kernel(self) -> Any:
        return self.module.KERNEL

    @property
    def collectives(self) -> dict[str, str]:
        return dict(self.module.COLLECTIVES)

    def plan_specs(self, world: int) -> list[str]:
        plans = self.module.PLANS
        specs = plans(world) if callable(plans) else list(plans)
        return [with_world(spec, world) for spec in specs]

    def make_inputs(self, rank: int, world: int, seed: int) -> dict[str, Any]:
        return self.module.make_inputs(rank, world, seed)

    @property
    def launch(self) -> Callable[..., Any]:
        return self.module.launch


def with_world(spec: str, world: int) -> str:
    """Add ``world=W`` to a template spec that has none."""
    spec = spec.strip()
    if "world=" in spec.replace(" ", "") or spec.endswith(".mlir"):
        return spec
    if spec.endswith("}"):
        return spec[:-1].rstrip() + f" world={world}}}"
    return spec + f"{{world={world}}}"


def load_workload(path: str) -> Workload:
    """Import the workload module at ``path`` and check the convention."""
    if not os.path.isfile(path):
        raise WorkloadError(f"{path}: no such workload file")
    name = "syncopate_workload_" + os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # the user's file failed to import
        raise WorkloadError(f"{path}: importing the workload failed: {type(err).__name__}: {err}") from None
    missing = [n for n in REQUIRED if not hasattr(module, n)]
    if missing:
        raise WorkloadError(
            f"{path}: a workload must define {', '.join(REQUIRED)}; missing {', '.join(missing)} "
            "(see README, 'Workload files')"
        )
    return Workload(path, module)
