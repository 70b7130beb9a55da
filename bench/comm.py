"""The collectives of the baselines, as torch.distributed names them on torch 2.11.

``all_gather_into_tensor`` / ``reduce_scatter_tensor`` are deprecated in
newer torch (FutureWarning, in favour of ``*_single``) but are what the GPU
image (torch 2.11) has; the warning is silenced here, once.
"""

from __future__ import annotations

import warnings
from typing import Any

import torch
import torch.distributed as dist

warnings.filterwarnings("ignore", category=FutureWarning, message=r".*all_gather_into_tensor.*")
warnings.filterwarnings("ignore", category=FutureWarning, message=r".*reduce_scatter_tensor.*")
warnings.filterwarnings("ignore", category=FutureWarning, message=r".*enable_symm_mem_for_group.*")


def all_gather_rows(out: torch.Tensor, shard: torch.Tensor, group: Any) -> None:
    """``out`` (W*m x k) = every rank's ``shard`` (m x k), by rank."""
    dist.all_gather_into_tensor(out, shard, group=group)


def reduce_scatter_rows(out: torch.Tensor, full: torch.Tensor, group: Any) -> None:
    """``out`` (m/W x n) = this rank's rows of the sum over ranks of ``full`` (m x n)."""
    dist.reduce_scatter_tensor(out, full, op=dist.ReduceOp.SUM, group=group)


def all_reduce(t: torch.Tensor, group: Any, average: bool = False) -> None:
    """``t`` = the sum (``average``: the mean) over ranks of ``t``, in place."""
    dist.all_reduce(t, op=dist.ReduceOp.AVG if average else dist.ReduceOp.SUM, group=group)


def all_to_all_rows(out: torch.Tensor, send: torch.Tensor, block: int, group: Any) -> None:
    """Every rank sends ``block`` rows of ``send`` to each rank, in rank order;
    ``out`` holds the blocks received, by source rank."""
    sizes = [block] * dist.get_world_size(group)
    dist.all_to_all_single(out, send, sizes, sizes, group=group)


def enable_symmetric_memory(group_name: str) -> None:
    """``enable_symm_mem_for_group`` where this torch needs it (2.11); a no-op where it is gone."""
    import torch.distributed._symmetric_memory as symm_mem

    enable = getattr(symm_mem, "enable_symm_mem_for_group", None)
    if enable is not None:
        enable(group_name)


def symmetric_empty(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device, group_name: str) -> torch.Tensor:
    """A tensor in torch's symmetric memory, rendezvoused over the group (collective): what
    ``torch.ops.symm_mem``'s all-reduces take as input."""
    import torch.distributed._symmetric_memory as symm_mem

    t = symm_mem.empty(shape, dtype=dtype, device=device)
    symm_mem.rendezvous(t, group_name)
    return t
