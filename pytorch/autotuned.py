"""Launching a fused kernel whose original is ``@triton.autotune``-d.

The fused kernel cannot be autotuned as Triton does it: the autotuner
benchmarks by launching the kernel many times, and every launch of a fused
kernel is a collective step (flags, epochs, peers' copies). So the original
kernel's own autotuner picks the configuration, on this launch's arguments,
by its usual benchmark (``original[grid](...)``: it also runs the original
once, whose outputs the fused launch then overwrites), and the fused kernel
is launched with that configuration's constexprs and launch options. Ranks
must agree (a configuration fixes the grid and the tiles): rank 0's choice
is broadcast over the group, once per autotuning key. In the Triton
interpreter (CPU) nothing is benchmarked: the first configuration is used.
Pruning and pre-hooks of the autotuner apply only to its own benchmark.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import torch

LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas")


def is_autotuned(kernel: Any) -> bool:
    from triton.runtime.autotuner import Autotuner

    return isinstance(kernel, Autotuner)


class AutotunedFusedKernel:
    """``fused[grid](...)`` for an autotuned original: picks the configuration, then launches ``fused``."""

    def __init__(self, fused: Any, autotuner: Any, group: Any):
        self.fused = fused  # FusedKernel over the fused program's plain @triton.jit function
        self.autotuner = autotuner
        self.group = group
        self.signature = inspect.signature(autotuner.fn.fn)
        self.chosen: dict[tuple, Any] = {}  # autotuning key -> triton.Config

    @property
    def program(self) -> Any:
        return self.fused.program

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        def call(*args: Any, **kwargs: Any) -> None:
            config = self._config(grid, args, kwargs)
            options = {k: getattr(config, k) for k in LAUNCH_OPTIONS if getattr(config, k, None) is not None}
            self.fused[grid](*args, **kwargs, **config.kwargs, **options)

        return call

    def _config(self, grid: Any, args: tuple, kwargs: dict) -> Any:
        bound = self.signature.bind_partial(*args, **kwargs).arguments
        key = tuple(bound.get(k) for k in self.autotuner.keys) + tuple(
            str(v.dtype) for v in bound.values() if isinstance(v, torch.Tensor))
        config = self.chosen.get(key)
        if config is None:
            config = self.chosen[key] = self._choose(grid, args, kwargs, bound)
        return config

    def _choose(self, grid: Any, args: tuple, kwargs: dict, bound: dict) -> Any:
        import torch.distributed as dist

        configs = self.autotuner.configs
        on_gpu = any(isinstance(v, torch.Tensor) and v.is_cuda for v in bound.values())
        if not on_gpu or len(configs) == 1:
            return configs[0]
        self.autotuner[grid](*args, **kwargs)  # the original's benchmark on this rank
        choice = [configs.index(self.autotuner.best_config)]
        dist.broadcast_object_list(choice, src=dist.get_global_rank(self.group, 0), group=self.group)
        return configs[choice[0]]
