"""The configuration of a fused launch whose original is ``@triton.autotune``-d,
chosen by the original's own autotuner (``syncopate.compile``).

A fused launch cannot benchmark itself (runtime/autotune.py says why), so
the original kernel's autotuner picks the configuration, on this launch's
arguments, by its usual benchmark (``original[grid](...)``: it also runs the
original once, whose outputs the fused launch then overwrites), and the
fused kernel is launched with that configuration by ``FusedKernel``, the one
launch path. Ranks must agree (a configuration fixes the grid and the
tiles): rank 0's choice is broadcast over the group, once per autotuning
key. In the Triton interpreter (CPU) nothing is benchmarked: the first
configuration is used. Pruning and pre-hooks of the autotuner apply only to
its own benchmark.

Workloads run by ``overlap-run`` have no process group to agree over; they
use ``runtime/autotune.py``'s ``OnlyConfig`` instead.
"""

from __future__ import annotations

import inspect
import time
from typing import Any

import torch

from syncopate.pytorch.op_stats import LOG


class BenchmarkedConfig:
    """A ``runtime.autotune.ConfigChoice``: the original's autotuner
    (``autotuner``: the ``@triton.autotune`` object among the original's
    decorators, ``runtime.autotune.autotuner_of``) benchmarks on rank 0's
    arguments' key, and every rank of ``group`` uses rank 0's choice."""

    def __init__(self, autotuner: Any, group: Any):
        from syncopate.runtime.fused import python_function

        self.autotuner = autotuner
        self.group = group
        self.function = python_function(autotuner)
        self.names = tuple(inspect.signature(self.function).parameters)
        self.chosen: dict[tuple, Any] = {}  # autotuning key -> triton.Config

    def __call__(self, grid: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
        # the arguments Triton's autotuner keys by: the parameters among those given
        bound = {**dict(zip(self.names, args)), **{k: v for k, v in kwargs.items() if k in self.names}}
        key = tuple(bound.get(k) for k in self.autotuner.keys) + tuple(
            str(v.dtype) for v in bound.values() if isinstance(v, torch.Tensor))
        config = self.chosen.get(key)
        if config is None:
            start = time.perf_counter()
            config = self.chosen[key] = self._choose(grid, args, kwargs, bound)
            LOG.info("syncopate.compile %s: configuration %s for autotuning key %s, chosen in %.2f s",
                     self.function.__name__, config, key, time.perf_counter() - start)
        return config

    def _choose(self, grid: Any, args: tuple, kwargs: dict[str, Any], bound: dict[str, Any]) -> Any:
        import torch.distributed as dist

        configs = self.autotuner.configs
        on_gpu = any(isinstance(v, torch.Tensor) and v.is_cuda for v in bound.values())
        if not on_gpu or len(configs) == 1:
            return configs[0]
        self.autotuner[grid](*args, **kwargs)  # the original's benchmark on this rank
        choice = [configs.index(self.autotuner.best_config)]
        dist.broadcast_object_list(choice, src=dist.get_global_rank(self.group, 0), group=self.group)
        return configs[choice[0]]
