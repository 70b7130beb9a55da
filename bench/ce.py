"""The copy-engine all-gather of the ``cuBLAS+CE`` and ``CE alone`` rows.

What the fused ce backend's transport costs without any overlap: every rank
writes its shard into its own symmetric buffer (on the current stream, as a
caller would stage it), then copies each peer's rows out of the peer's
symmetric buffer into the gathered output, on the current stream
(``copy_`` of contiguous rows between GPUs is a copy-engine transfer).

A correct call pays for the same two orderings the fused launch pays for
(runtime/gather_tokens.py), here with a device-side barrier of the
symmetric buffer's group on the current stream, never a host barrier:

* **ready**: a barrier after the own write and before the first peer read,
  so no rank reads a peer's rows before the peer wrote this call's rows;
* **reuse**: a barrier after the last peer read, so no rank overwrites its
  rows (the next call's write) while a peer still copies them.

:class:`CopyEngineGather` takes the buffer, the peers' views of it and the
barrier as arguments, so the ordering is tested on the CPU with recorded
calls (test/unit/bench/test_bench_ce.py); :func:`gpu_gather` builds it from the
GPU World (views from ``GpuWorld.peer_view``, the barrier from the
symmetric-memory handle), and :func:`local_gather` for one rank on the CPU
(``--cpu``), where there is no peer and the barrier has nothing to order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch


@dataclass
class CopyEngineGather:
    """All-gather of row shards through a symmetric buffer.

    ``buffer``: this rank's symmetric buffer, as many rows as the gathered
    tensor; ``views[p]``: rank ``p``'s buffer as this rank sees it
    (``views[rank]`` is ``buffer``); ``barrier()``: a device-side barrier of
    every rank of the group, ordered on the current stream.
    """

    rank: int
    buffer: torch.Tensor
    views: Sequence[torch.Tensor]
    barrier: Callable[[], None]

    def rows(self, owner: int) -> slice:
        per = self.buffer.shape[0] // len(self.views)
        return slice(owner * per, (owner + 1) * per)

    def __call__(self, out: torch.Tensor, shard: torch.Tensor) -> None:
        """``out`` = every rank's ``shard``, by rank (see the module doc for the orderings)."""
        mine = self.rows(self.rank)
        self.buffer[mine].copy_(shard)  # the caller's staging write
        self.barrier()  # ready: every owner's rows of this call are written
        out[mine].copy_(shard)
        for peer, view in enumerate(self.views):
            if peer != self.rank:
                rows = self.rows(peer)
                out[rows].copy_(view[rows], non_blocking=True)
        self.barrier()  # reuse: every reader is done with this rank's rows


def gpu_gather(ctx: Any, shape: tuple[int, ...], dtype: torch.dtype) -> CopyEngineGather:
    """The copy-engine gather of one row on GPUs: a symmetric buffer of its
    own (collective allocation), the peers' views, the buffer's barrier."""
    gpu = ctx.gpu
    buffer = gpu.symmetric(torch.empty(shape, dtype=dtype, device=ctx.device))
    handle = gpu.handles[buffer.data_ptr()][0]
    views = [buffer if p == ctx.rank else gpu.peer_view(buffer, p, "copy-engine gather buffer")
             for p in range(ctx.world)]
    return CopyEngineGather(ctx.rank, buffer, views, lambda: handle.barrier(channel=0))


def local_gather(ctx: Any, shape: tuple[int, ...], dtype: torch.dtype) -> CopyEngineGather:
    """The same gather for one CPU rank (``--cpu``): its own buffer is every view, and nothing needs ordering."""
    if ctx.world != 1:
        raise RuntimeError("the copy-engine gather needs CUDA symmetric memory with more than one rank")
    buffer = torch.empty(shape, dtype=dtype, device=ctx.device)
    return CopyEngineGather(ctx.rank, buffer, [buffer], lambda: None)


def make_gather(ctx: Any, shape: tuple[int, ...], dtype: torch.dtype) -> CopyEngineGather:
    return local_gather(ctx, shape, dtype) if ctx.cpu else gpu_gather(ctx, shape, dtype)
