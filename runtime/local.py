"""A World of one rank whose chunks have all arrived: a fused kernel without communication.

``LocalRank(device, rank)`` is a :class:`~syncopate.runtime.fused.RankContext`
that launches a fused program as rank ``rank`` of its plans, with every flag
of the signal pad already raised: each wait passes at its first poll, each
signal counts, and nothing is copied. The caller passes complete inputs (the
whole gathered tensor), so the result is the local kernel's. It measures
what the passes add to a kernel by themselves (waits, signals, tile order)
apart from communication: overlap-bench's "syncopate no-comm" row, against
"Triton alone".

Programs whose kernel holds SM communication programs (backend ``sm``)
copy chunks themselves; they are refused. A kernel that reduces in its
epilogue (fuse-peer-reduction) adds a zeroed staging buffer, and so does
one that all-reduces by push (push-all-reduce: every peer's partial reads
as zeros, its pushes land in a scratch half of the buffer). Launch tables are built once per
(program, grid, tensors): a launch does no host work beyond the kernel call,
so it can be captured in a CUDA graph.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
import math
from typing import Any

import torch

from syncopate.ir.contract import AbiKey
from syncopate.runtime.abi import LaunchPlan, SyncState, fused_reductions
from syncopate.runtime.fused import FusedProgram
from syncopate.runtime.push import PushLayout, pushed_plans
from syncopate.runtime.staging import StagingLayout, owner_regions, reduce_table

ARRIVED = 1 << 30  # every flag's value: above every epoch and below int32 overflow after many signals


class LocalRankError(Exception):
    pass


@dataclass
class LocalRank:
    device: torch.device | None = None  # None: CPU tensors (the Triton interpreter)
    rank: int = 0  # the rank whose tile order and chunk tables the launch uses
    spin_limit: int = 0  # > 0: bound the kernel's spins (a wait that would not pass shows up in the report)
    launches: dict[tuple, tuple[LaunchPlan, dict[str, Any], SyncState]] = field(default_factory=dict)
    staging: list[torch.Tensor] = field(default_factory=list)  # push-all-reduce slots the launch tables point into

    def launch(self, program: FusedProgram, grid: tuple[int, ...], params: Mapping[str, Any],
               run: Callable[..., None], options: tuple | None = None) -> None:
        key = _launch_key(program, grid, params)
        if key not in self.launches:
            launch = LaunchPlan.build(program, params, grid, self.rank)
            if AbiKey.COMM_PROGRAMS in program.abi:
                raise LocalRankError(f"kernel '{program.kernel_name}' has SM communication programs (backend sm), "
                                     "which copy chunks themselves: LocalRank runs programs without them")
            layouts = {name: StagingLayout(owner_regions(launch.chunks[name]), launch.plans[name].world_size,
                                           launch.flag_count) for name in fused_reductions(program)}
            world = {name: launch.plans[name].world_size for name in pushed_plans(program)}
            pushes = {name: PushLayout(w, math.prod(launch.grid), launch.flag_count) for name, w in world.items()}
            sync = SyncState.allocate(max([launch.flag_count] + [lay.flag_end for lay in layouts.values()]
                                          + [lay.flag_end for lay in pushes.values()]), self.device, self.spin_limit)
            sync.flags.fill_(ARRIVED)
            sync.epoch.fill_(1)

            def zero_staging(name: str, tensor: str) -> tuple[torch.Tensor, list[list[int]]]:
                """An epilogue reduction adds zeros: the peers' partials are all 'there' and empty."""
                out = params[launch.plans[name].tensors[0].param.data]
                staging = torch.zeros(layouts[name].shape(out), dtype=out.dtype, device=out.device)
                return staging, reduce_table(layouts[name], owner_regions(launch.chunks[name]), self.rank, out, staging)

            def push_zeros(name: str, tensor: str) -> list[list[int]]:
                """A push reads zeros for every peer and pushes into a scratch buffer (staging's other half)."""
                out = params[launch.plans[name].tensors[0].param.data]
                lay = pushes[name]
                slots = torch.zeros((2, *lay.staging_shape(out)), dtype=out.dtype, device=out.device)
                self.staging.append(slots)  # the table holds its addresses: it lives as long as the launch tables
                # every flag is raised already, and stays so: the raises go to the layout's own words
                return lay.rows(self.rank, out, lambda owner, parity, source:
                                slots[0, parity, source] if owner == self.rank else slots[1, parity, owner],
                                lambda q: lay.flag(self.rank, 0))

            extra = launch.arguments(program, sync, self.device, None, params, zero_staging, push_zeros)
            self.launches[key] = (launch, extra, sync)
        launch, extra, _ = self.launches[key]
        run(dict(extra), launch.launch_grid(program, 0))

    def timed_out(self) -> list[str]:
        """Reports of spins that ran out (with ``spin_limit``): a wait that did not pass."""
        return [message for launch, _, sync in self.launches.values()
                if (message := sync.timeout(launch, self.rank)) is not None]


def _launch_key(program: FusedProgram, grid: tuple[int, ...], params: Mapping[str, Any]) -> tuple:
    def describe(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return (value.data_ptr(), tuple(value.shape), tuple(value.stride()), value.dtype)
        return value if isinstance(value, (int, float, bool, str, type(None))) else id(value)

    return (id(program), grid, tuple((k, describe(v)) for k, v in params.items()))
