"""Which ``triton.Config`` a fused launch of an autotuned kernel runs.

The fused kernel cannot be autotuned as Triton does it: the autotuner
benchmarks by launching the kernel many times, and every launch of a fused
kernel is a collective step (flags, epochs, peers' copies); and the chunk
tables depend on the block sizes, so a launch must know its configuration
before it starts. So the configuration is chosen before the launch by a
:class:`ConfigChoice`, and :class:`~syncopate.runtime.fused.FusedKernel`
(the one launch path) launches the fused kernel's plain jit function with
that configuration's constexprs and launch options (:func:`launch_arguments`).

Two choices exist, for the two ways a fused kernel is made:

* :class:`OnlyConfig` (the default, workloads run by ``overlap-run`` and the
  benchmark): a kernel autotuned over one configuration runs it; several are
  refused, since nothing here may benchmark a collective launch;
* ``pytorch/autotuned.py``'s ``BenchmarkedConfig`` (``syncopate.compile``):
  the original kernel's own autotuner benchmarks, and rank 0's choice is
  broadcast over the process group.
"""

from __future__ import annotations

from typing import Any, Protocol


class ConfigChoice(Protocol):
    """Chooses the configuration of one fused launch."""

    chosen: dict[tuple, Any]
    """The configurations chosen so far, by autotuning key."""

    def __call__(self, grid: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
        """The ``triton.Config`` to launch with the caller's arguments ``args``,
        ``kwargs`` (as given to ``fused[grid](...)``)."""


def launch_arguments(config: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(constexpr meta-parameters, launch options such as ``num_warps``) of ``config``."""
    options = {k: v for k, v in config.all_kwargs().items() if k not in config.kwargs}
    return dict(config.kwargs), options


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
