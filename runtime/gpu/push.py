"""Push all-reduce (push-all-reduce) on the GPU World: staging, peer tables, the residency refusal.

The kernel does the whole all-reduce (lowering/device_helpers.py,
``syn_push_reduce``); the runtime only lays out memory and refuses grids
that could hang. Per rank and signal pad, one symmetric staging buffer
``(2, W, bucket)`` of the output's dtype (epoch parity, source rank, the
output's storage span rounded up to a power of two, so serving row counts
share a handful of buffers). The table's offsets are distances from the
launch's output to slots of the peers' buffers (``GpuWorld.peer_view``) and
to flag words in the peers' pads, so it is built per launch key (which
holds the output's address).

Why staging and flags are keyed by the pad: a pad's epoch counts the
launches of every configuration sharing it, and the parity argument
(passes/push_all_reduce.py) is about consecutive launches on one epoch
counter; a flag holds an epoch of its pad, which only grows, so a stale
flag of another configuration never passes a wait. Not run on W >= 2
GPUs yet (docs/runtime-protocol.md, "Push all-reduce").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import torch

from syncopate.runtime.abi import LaunchPlan, SyncState
from syncopate.runtime.fused import FusedProgram
from syncopate.runtime.gpu.errors import GpuWorldError
from syncopate.runtime.gpu.flags import FLAG_CAPACITY
from syncopate.runtime.gpu.memory import bucket_rows
from syncopate.runtime.push import PushLayout, distance, pushed_plans, residency_error, span

if TYPE_CHECKING:
    from syncopate.runtime.gpu.world import GpuWorld


def refusal(program: FusedProgram, grid: tuple[int, ...], sms: int) -> str | None:
    """Why the GPU World will not launch ``grid`` (None: it will)."""
    return residency_error(program, grid, sms) if pushed_plans(program) else None


def push_rows(w: GpuWorld, launch: LaunchPlan, params: Mapping[str, Any],
              sync: SyncState) -> Callable[[str, str], list[list[int]]]:
    """``LaunchPlan.arguments``' ``push_rows`` for this rank (allocates
    staging collectively on a pad's first launch of a size bucket)."""
    tiles = math.prod(launch.grid)
    layout = PushLayout(w.world, tiles, launch.flag_count)
    if layout.flag_end > FLAG_CAPACITY // 2:
        raise GpuWorldError(f"push all-reduce needs {layout.flag_end} signal-pad flags ({tiles} tiles x {w.world} "
                            f"ranks); the pad holds {FLAG_CAPACITY // 2}")

    def rows(plan: str, tensor: str) -> list[list[int]]:
        out = params[launch.plans[plan].tensors[0].param.data]
        buf = staging(w, sync, out)
        peers = {q: w.peer_view(buf, q, "push staging") for q in range(w.world) if q != w.rank}
        pads = {q: w.peer_view(sync.flags, q, "signal pad") for q in peers}

        def slot(owner: int, parity: int, source: int) -> torch.Tensor:
            return (buf if owner == w.rank else peers[owner])[parity, source]

        return layout.rows(w.rank, out, slot, lambda q: distance(sync.flags, pads[q]) + layout.flag(w.rank, 0))

    return rows


def staging(w: GpuWorld, sync: SyncState, out: torch.Tensor) -> torch.Tensor:
    """This pad's push staging for ``out``'s dtype and size bucket (symmetric, allocated once)."""
    bucket = bucket_rows(span(out))  # elements here, rounded as staging rows are
    key = (sync.flags.data_ptr(), out.dtype, bucket)
    buf = w.push_staging.get(key)
    if buf is None:
        if torch.cuda.is_current_stream_capturing():
            raise GpuWorldError("a push all-reduce's first launch of a size allocates its staging buffer and cannot "
                                "be captured: launch it once eagerly before capturing a CUDA graph")
        buf = w.push_staging[key] = w.symmetric(torch.empty((2, w.world, bucket), dtype=out.dtype))
    return buf

