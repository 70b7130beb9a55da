"""A launch context that runs the collective unfused, with ``torch.distributed``.

Where the GPU world does not apply (CPU tensors, a gloo group) a fused
kernel still has to give the original program's results. ``UnfusedRank``
does the plans' collectives as whole operations around the fused kernel:

* all-gather: every owner's rows are broadcast from their owner into the
  gathered tensor before the kernel runs (one ``broadcast`` per owner's
  region, so uneven shards work);
* reduce-scatter: after the kernel, the output tensor is summed over the
  ranks (``all_reduce``), so rank r's rows hold its reduced result;

and the kernel itself runs as a :class:`~syncopate.runtime.local.LocalRank`
launch, every flag raised. Plans it cannot express this way (all-to-all,
ring-exchange) are refused with an error naming the plan. Every rank must
launch the same configurations in the same order, as with any collective.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from syncopate.ir.contract import CONSUMED
from syncopate.pytorch.worlds import SyncopateSetupError
from syncopate.runtime.abi import LaunchPlan
from syncopate.runtime.fused import FusedProgram
from syncopate.runtime.local import LocalRank
from syncopate.runtime.rows import rows

Region = tuple[str, int, int, int, int]  # (parameter, dim, lo, hi, owner)


@dataclass
class UnfusedRank:
    group: Any
    rank: int
    local: LocalRank = field(default_factory=LocalRank)
    steps: dict[tuple, tuple[list[Region], list[str]]] = field(default_factory=dict)  # launch key -> collectives

    def launch(self, program: FusedProgram, grid: tuple[int, ...], params: Mapping[str, Any],
               run: Callable[..., None], options: tuple | None = None) -> None:
        import torch.distributed as dist

        key = (id(program), grid, tuple((k, v if not isinstance(v, torch.Tensor) else tuple(v.shape))
                                        for k, v in params.items()))
        if key not in self.steps:
            self.steps[key] = _collective_steps(LaunchPlan.build(program, params, grid, self.rank))
        gathers, reductions = self.steps[key]
        for param, dim, lo, hi, owner in gathers:
            target = rows(params[param], dim, lo, hi)
            block = target.contiguous()
            dist.broadcast(block, src=dist.get_global_rank(self.group, owner), group=self.group)
            if block.data_ptr() != target.data_ptr():
                target.copy_(block)
        self.local.rank = self.rank
        self.local.device = _device(params)
        self.local.launch(program, grid, params, run)
        for param in reductions:
            out = params[param]
            if not out.is_contiguous():
                raise SyncopateSetupError(f"the reduce-scatter output '{param}' must be contiguous")
            dist.all_reduce(out, group=self.group)


def _device(params: Mapping[str, Any]) -> torch.device | None:
    """The launch's device for LocalRank (None: CPU tensors, the Triton interpreter)."""
    device = next((v.device for v in params.values() if isinstance(v, torch.Tensor)), None)
    return None if device is None or device.type == "cpu" else device


def _collective_steps(launch: LaunchPlan) -> tuple[list[Region], list[str]]:
    """The broadcasts (one per owner's region of a gathered tensor, in a fixed
    order every rank shares) and the tensors to sum after the kernel."""
    gathers: set[Region] = set()
    reductions: list[str] = []
    for name, plan in launch.plans.items():
        if plan.collective == "all-gather":
            gathers.update((c.param, c.dim, c.lo, c.hi, c.src) for c in launch.chunks[name])
        elif plan.collective in CONSUMED:
            raise SyncopateSetupError(
                f"plan @{name} ({plan.collective}) needs the GPU world: on CPU or gloo syncopate runs only "
                "all-gather and reduce-scatter plans (unfused)"
            )
        else:
            reductions.extend(sorted({c.param for c in launch.chunks[name]}))
    return sorted(gathers), reductions
