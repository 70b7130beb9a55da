"""The launch-time helpers of a fused launch: ``@triton.autotune``
configurations and ``@triton.heuristics`` values.

The emitted source keeps the original's decorators, but a fused launch runs
the fused kernel's plain jit function and applies the *original's*
decorators itself (:class:`LaunchHelpers`), the way Triton's own launch of
the original would: from the outermost decorator in, an autotuner adds the
chosen configuration's constexprs and launch options to the call's keyword
arguments, and a heuristics decorator computes each of its values from the
call's arguments so far (positional ones by name, then the keyword ones),
a later heuristic seeing the earlier ones. So what the caller passes is
what decides: a workload or program that passes the plain jit function of
a decorated kernel gives every constexpr itself, as Triton would require.
:class:`~syncopate.runtime.fused.FusedKernel` (the one launch path, of
workloads and of ``syncopate.compile``) resolves every launch through
:meth:`LaunchHelpers.resolve`.

The fused kernel cannot be autotuned as Triton does it: the autotuner
benchmarks by launching the kernel many times, and every launch of a fused
kernel is a collective step (flags, epochs, peers' copies); and the chunk
tables depend on the block sizes, so a launch must know its configuration
before it starts. So the configuration is chosen before the launch by a
:class:`ConfigChoice`. Two choices exist, for the two ways a fused kernel
is made:

* :class:`OnlyConfig` (the default, workloads run by ``overlap-run`` and the
  benchmark): a kernel autotuned over one configuration runs it; several are
  refused, since nothing here may benchmark a collective launch;
* ``pytorch/autotuned.py``'s ``BenchmarkedConfig`` (``syncopate.compile``):
  the original kernel's own autotuner benchmarks, and rank 0's choice is
  broadcast over the process group.

A heuristic is a function of the launch's arguments: a launch repeated with
the same arguments (``FusedKernel``'s replay) does not call it again.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Mapping
from typing import Any, Protocol

LAUNCH_OPTIONS = frozenset(("num_warps", "num_stages", "num_ctas"))  # Triton launch options, not parameters


class ConfigChoice(Protocol):
    """Chooses the configuration of one fused launch."""

    chosen: dict[tuple, Any]
    """The configurations chosen so far, by autotuning key."""

    def __call__(self, grid: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
        """The ``triton.Config`` to launch with the caller's arguments ``args``,
        ``kwargs`` (as the autotuner would get them: those given to
        ``fused[grid](...)``, plus the values of heuristics decorators above
        the autotuner)."""


class HeuristicError(ValueError):
    """A ``@triton.heuristics`` function read an argument the launch does not pass."""


def launch_arguments(config: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(constexpr meta-parameters, launch options such as ``num_warps``) of ``config``."""
    options = {k: v for k, v in config.all_kwargs().items() if k not in config.kwargs}
    return dict(config.kwargs), options


def decorators(kernel: Any) -> tuple[Any, ...]:
    """The objects that wrap ``kernel``'s jit function in ``.fn`` (autotuner,
    heuristics), outermost first; empty for a plain jit function."""
    layers = []
    while hasattr(kernel, "fn") and not inspect.isfunction(kernel.fn):
        layers.append(kernel)
        kernel = kernel.fn
    return tuple(layers)


def plain_jit(kernel: Any) -> Any:
    """The jit function under ``kernel``'s decorators (``kernel`` itself if none)."""
    layers = decorators(kernel)
    return layers[-1].fn if layers else kernel


def autotuner_of(kernel: Any) -> Any | None:
    """The ``@triton.autotune`` object among ``kernel``'s decorators, if any."""
    from triton.runtime.autotuner import Autotuner

    return next((layer for layer in decorators(kernel) if isinstance(layer, Autotuner)), None)


class OnlyConfig:
    """The single configuration of a kernel autotuned over one; several are refused."""

    def __init__(self, kernel_name: str, configs: list[Any]):
        self.kernel_name = kernel_name
        self.configs = configs
        self.chosen: dict[tuple, Any] = {}

    def __call__(self, grid: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
        if len(self.configs) != 1:
            raise ValueError(
                f"{self.kernel_name} is autotuned over {len(self.configs)} configs; a fused launch needs its block "
                "sizes before it starts: autotune the original kernel, then give the fused one the chosen config"
            )
        self.chosen[()] = self.configs[0]
        return self.configs[0]


class LaunchHelpers:
    """The decorators of an original kernel, applied to each launch's arguments."""

    def __init__(self, kernel: Any, kernel_name: str, choose: ConfigChoice | None = None):
        from triton.runtime.autotuner import Autotuner, Heuristics

        self.kernel_name = kernel_name
        self.function = plain_jit(kernel)
        while not inspect.isfunction(self.function) and hasattr(self.function, "fn"):
            self.function = self.function.fn
        self.names = tuple(inspect.signature(self.function).parameters)
        # None: the autotuner; a dict: the values of one heuristics decorator, in its order
        self.steps: list[dict[str, Callable[[dict[str, Any]], Any]] | None] = []
        self.autotuner = None
        self.choose: ConfigChoice | None = None
        for layer in decorators(kernel):
            if isinstance(layer, Heuristics):
                self.steps.append(dict(layer.values))
            elif isinstance(layer, Autotuner) and self.autotuner is None:
                self.autotuner = layer
                self.choose = choose or OnlyConfig(kernel_name, layer.configs)
                self.steps.append(None)
            else:
                what = "a second @triton.autotune" if isinstance(layer, Autotuner) else type(layer).__name__
                raise TypeError(f"kernel {kernel_name}: {what} wraps its jit function; a fused launch applies one "
                                "@triton.autotune and any @triton.heuristics, nothing else")
        self._arguments: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}  # id(config) -> launch_arguments

    def __bool__(self) -> bool:
        return bool(self.steps)

    def resolve(self, grid: Any, args: tuple, kwargs: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any], Any]:
        """(the keyword arguments of the plain jit launch, its launch options,
        the chosen ``triton.Config`` or None) for the call ``kernel[grid](*args,
        **kwargs)``. The caller's own keyword arguments win over a
        configuration's; a heuristic's value wins over both, as in Triton."""
        kw = dict(kwargs)
        config, tuned = None, {}
        for index, step in enumerate(self.steps):
            if step is None:
                assert self.choose is not None
                config = self.choose(grid, args, kw)
                arguments = self._arguments.get(id(config))
                if arguments is None:
                    arguments = self._arguments[id(config)] = launch_arguments(config)
                meta, tuned = arguments
                kw = {**meta, **tuned, **kw}
                continue
            seen = {**dict(zip(self.names, args)), **kw}
            for name, heuristic in step.items():
                try:
                    value = heuristic(seen)
                except KeyError as e:
                    missing = e.args[0] if len(e.args) == 1 else None
                    if not isinstance(missing, str) or missing in seen:
                        raise
                    raise HeuristicError(self._unsupplied(index, name, heuristic, missing, seen)) from None
                seen[name] = kw[name] = value
        options = {k: kw.pop(k) for k in (LAUNCH_OPTIONS | tuned.keys()) & kw.keys()}
        return kw, options, config

    def _unsupplied(self, index: int, name: str, heuristic: Any, missing: str, seen: Mapping[str, Any]) -> str:
        return (f"{self._where(index, heuristic)}: heuristic {name!r} of @{self.kernel_name} reads "
                f"args[{missing!r}], which this launch does not pass (it passes {', '.join(seen) or 'nothing'}): a "
                "heuristic sees the arguments the call gives, the chosen config's values and the heuristics before "
                "it, not the parameters' defaults")

    def _where(self, index: int, heuristic: Any) -> str:
        """file:line of the ``@triton.heuristics`` decorator of ``self.steps[index]``;
        of the heuristic function itself where the decorators are not found in
        the source (the call form ``triton.heuristics(...)(kernel)``)."""
        try:
            lines, start = inspect.getsourcelines(self.function)
            tree = ast.parse(textwrap.dedent("".join(lines)))
            definition = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
        except (OSError, TypeError, SyntaxError, StopIteration):
            definition = None
        found = [d for d in definition.decorator_list if _is_heuristics(d)] if definition is not None else []
        heuristics = [i for i, step in enumerate(self.steps) if step is not None]
        if len(found) == len(heuristics):  # outermost first, as the steps
            return f"{inspect.getsourcefile(self.function)}:{start + found[heuristics.index(index)].lineno - 1}"
        code = getattr(heuristic, "__code__", None)
        return f"{code.co_filename}:{code.co_firstlineno}" if code is not None else f"@{self.kernel_name}"


def _is_heuristics(decorator: ast.expr) -> bool:
    func = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(func, ast.Attribute) and func.attr == "heuristics") or (
        isinstance(func, ast.Name) and func.id == "heuristics")
