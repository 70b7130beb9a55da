"""The in-place collectives of ``torch.distributed`` that ``syncopate.ops``
issues, called on the process group itself.

``dist.all_gather_into_tensor`` and its kin check their arguments, log, and
look the group up before they reach ``ProcessGroup``; on a small call that
is a visible share of the host time, and the ops have checked the same
things already. These functions issue the same backend call
(``_allgather_base``, ``_reduce_scatter_base``, ``allreduce``) with the same
options as the synchronous ``torch.distributed`` call, ``asyncOp`` false
included, and wait for it as that call does (for NCCL: the collective runs
on the current stream; the host does not wait). The options' default is an
asynchronous op, which NCCL runs on its own stream behind an event pair and
a watchdog entry: 40-60 us more per small call on H100s.

Assumed: contiguous real (not complex) plain tensors, the caller a member
of ``group``. Where that may not hold, the group is None (the default
group, as ``torch.distributed`` reads it), or the group is inside a
``torch.distributed`` coalescing context (which queues collectives instead
of issuing them), the ``torch.distributed`` function runs instead, so the
results are always that function's.
"""

from __future__ import annotations

from typing import Any

import torch


def _direct(group: Any, *tensors: torch.Tensor) -> bool:
    """Whether the backend call may be issued directly (see the module docstring)."""
    from torch.distributed.distributed_c10d import _world

    return (group is not None and group not in _world.pg_coalesce_state
            and all(type(t) is torch.Tensor and not t.is_complex() and t.is_contiguous() for t in tensors))


def _synchronous(opts: Any) -> Any:
    """``opts`` as a synchronous call's (torch releases without ``asyncOp`` have no other kind)."""
    if hasattr(opts, "asyncOp"):
        opts.asyncOp = False
    return opts


def _wait(work: Any) -> None:
    if work is not None:  # some backends finish the call in C++ and return no work
        work.wait()


def all_gather_into(out: torch.Tensor, shard: torch.Tensor, group: Any) -> None:
    """``dist.all_gather_into_tensor(out, shard, group=group)``."""
    import torch.distributed as dist
    import torch.distributed.distributed_c10d as c10d

    if not _direct(group, out, shard):
        dist.all_gather_into_tensor(out, shard, group=group)
        return
    _wait(group._allgather_base(out, shard, _synchronous(c10d.AllgatherOptions())))


def reduce_scatter_into(out: torch.Tensor, full: torch.Tensor, group: Any) -> None:
    """``dist.reduce_scatter_tensor(out, full, group=group)`` (a sum)."""
    import torch.distributed as dist
    import torch.distributed.distributed_c10d as c10d

    if not _direct(group, out, full):
        dist.reduce_scatter_tensor(out, full, group=group)
        return
    opts = _synchronous(c10d.ReduceScatterOptions())
    opts.reduceOp = c10d.ReduceOp.SUM
    _wait(group._reduce_scatter_base(out, full, opts))


def all_reduce(t: torch.Tensor, group: Any) -> None:
    """``dist.all_reduce(t, group=group)`` (a sum, in place)."""
    import torch.distributed as dist
    import torch.distributed.distributed_c10d as c10d

    if not _direct(group, t):
        dist.all_reduce(t, group=group)
        return
    opts = _synchronous(c10d.AllreduceOptions())
    opts.reduceOp = c10d.ReduceOp.SUM
    _wait(group.allreduce([t], opts))
