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
import inspect
import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

REQUIRED = ("KERNEL", "PLANS", "COLLECTIVES", "make_inputs", "launch")


class WorkloadError(Exception):
    """A workload file that does not follow the convention."""


def shard_bounds(total: int, world: int, rank: int) -> tuple[int, int]:
    """(start, size) of rank's shard of ``total`` rows by the one rule plans
    cut rows with (docs/plans.md, "Cutting rows"; ``ir/plans/tiling.tile``):
    ``total // world`` each, the last rank the rest. Workloads cut their
    all-gather inputs with it, so each rank holds exactly the rows the plan
    gives it, whether the plan's size is a literal or bound at launch."""
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
        value = self.module.COLLECTIVES
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise WorkloadError(f"{self.path}: COLLECTIVES must map kernel pointer parameters to launch argument "
                                f"names, e.g. {{'a_ptr': 'a'}}, got {_short(value)}")
        return dict(value)

    def plan_specs(self, world: int) -> list[str]:
        plans = self.module.PLANS
        if callable(plans):
            try:
                plans = plans(world)
            except Exception as err:  # the user's function failed
                raise WorkloadError(f"{self.path}: PLANS({world}) raised {describe(err)}") from None
        if isinstance(plans, str) or not isinstance(plans, (list, tuple)) or not all(isinstance(p, str) for p in plans):
            raise WorkloadError(f"{self.path}: PLANS must be a list of plan specs (strings) or a function of the world "
                                f"returning one, got {_short(plans)}")
        return [with_world(spec, world) for spec in plans]

    def make_inputs(self, rank: int, world: int, seed: int) -> dict[str, Any]:
        """Rank ``rank``'s inputs, checked against ``launch``'s parameters."""
        call = f"make_inputs(rank={rank}, world={world}, seed={seed})"
        try:
            inputs = self.module.make_inputs(rank, world, seed)
        except Exception as err:  # the user's function failed
            raise WorkloadError(f"{self.path}: {call} raised {describe(err)}") from None
        if not isinstance(inputs, dict) or not all(isinstance(k, str) for k in inputs):
            raise WorkloadError(f"{self.path}: {call} returned {_short(inputs)}; it must return a dict of launch's "
                                "keyword arguments")
        try:
            inspect.signature(self.module.launch).bind(None, **inputs)
        except TypeError as err:
            raise WorkloadError(f"{self.path}: {call} returned keys {sorted(inputs)}, which do not fit "
                                f"launch{_signature(self.module.launch)}: {err}") from None
        except ValueError:  # a builtin without a signature: let the call tell
            pass
        return inputs

    @property
    def launch(self) -> Callable[..., Any]:
        return self.module.launch

    def call_launch(self, kernel: Any, inputs: dict[str, Any], what: str,
                    passthrough: tuple[type[BaseException], ...] = ()) -> Any:
        """``launch(kernel, **inputs)``; its failure, or a None result, as a
        one-line :class:`WorkloadError` (``what`` names the kernel). Errors
        of the types in ``passthrough`` (the runtime's own, raised through
        the user's code) and their Triton interpreter wrappers are re-raised
        as they are."""
        try:
            out = self.module.launch(kernel, **inputs)
        except passthrough:
            raise
        except Exception as err:
            cause = err.__cause__
            if isinstance(cause, passthrough):  # the interpreter wraps errors raised inside a kernel
                raise cause from None
            where = "in Triton's interpreter" if type(err).__name__ == "InterpreterError" else ""
            if where and cause is not None:
                err = cause
            raise WorkloadError(f"{self.path}: launch({what}, ...) raised {where + ': ' if where else ''}"
                                f"{describe(err)}") from None
        if out is None:
            raise WorkloadError(f"{self.path}: launch({what}, ...) returned None; it must return its output "
                                "tensor (or a tuple of them)")
        return out


def describe(err: BaseException) -> str:
    """An exception as one line: its type and the first line of its message."""
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _signature(fn: Callable[..., Any]) -> str:
    try:
        return str(inspect.signature(fn))
    except (TypeError, ValueError):
        return "(...)"


def with_world(spec: str, world: int) -> str:
    """Add ``world=W`` to a template spec that has none."""
    spec = spec.strip()
    if "world=" in spec.replace(" ", "") or spec.endswith(".mlir"):
        return spec
    if spec.endswith("}"):
        return spec[:-1].rstrip() + f" world={world}}}"
    return spec + f"{{world={world}}}"


def load_workload(path: str | os.PathLike[str]) -> Workload:
    """Import the workload module at ``path`` and check the convention."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise WorkloadError(f"{path}: no such workload file")
    if not path.endswith(".py"):
        raise WorkloadError(f"{path}: a workload file is a Python module and its name must end in .py "
                            f"(got {os.path.splitext(path)[1] or 'no suffix'})")
    name = "syncopate_workload_" + os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # not reached with a .py name; kept as one error line
        raise WorkloadError(f"{path}: cannot be imported as a Python module")
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
