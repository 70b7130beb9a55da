"""Every device operation the GPU World's protocol issues, in one place.

The protocol modules (flags, backends, staging and gather tokens) call
these through this module (``device.write_value(...)``), never by a name
imported into their own namespace, so a test can replace them all at once
and record the protocol as a list of stream operations (see
test/unit/runtime/gpu/test_gpu_*.py).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import stream_memops
from syncopate.runtime.gpu.stream_wait import wait_flag

__all__ = ["accumulate", "add_epoch", "await_token", "await_tokens", "capture", "copy", "memop_waits", "put_word", "replay",
           "set_epoch", "wait_flag", "wait_values", "write_epoch", "write_value", "zero_words"]


def write_value(flags: torch.Tensor, index: int, value: int) -> None:
    """``flags[index] = value`` by a stream memory operation: it needs no SM,
    so it runs even while spinning tiles hold every SM."""
    from torch.distributed._symmetric_memory import _SymmetricMemory

    _SymmetricMemory.stream_write_value32(flags.view(torch.uint32), index, value)


def put_word(target: torch.Tensor, index: int, source: torch.Tensor, at: int) -> None:
    """``target[index] = source[at]`` on the current stream, by a copy:
    between two GPUs' memory a copy engine runs it (runtime/gpu/words.py)."""
    target[index:index + 1].copy_(source[at:at + 1], non_blocking=True)


def set_epoch(epoch: torch.Tensor, value: int) -> None:
    """The epoch word (one int32) becomes ``value``, on the current stream:
    an eager launch's count, written like a flag."""
    write_value(epoch, 0, value)


def add_epoch(epoch: torch.Tensor) -> None:
    """The epoch word grows by 1 on the current stream: a captured launch's
    count, so that every replay counts itself."""
    epoch.add_(1)


def write_epoch(flags: torch.Tensor, index: int, epoch: torch.Tensor) -> None:
    """``flags[index] = epoch`` on the current stream, copied from the epoch
    word, so a graph replay writes its own epoch. A same-device copy may run
    as a driver kernel, which needs a free SM: used only for reduce-scatter
    arrivals, which no tile spins on."""
    flags[index:index + 1].copy_(epoch, non_blocking=True)


def zero_words(flags: torch.Tensor, words: torch.Tensor) -> None:
    """``flags[words] = 0`` on the current stream, one kernel (``words``: int64 indices on the device)."""
    flags.index_fill_(0, words, 0)


def copy(dst: torch.Tensor, src: torch.Tensor) -> None:
    """A peer copy on the current stream (a copy engine for contiguous rows)."""
    dst.copy_(src, non_blocking=True)


def accumulate(dst: torch.Tensor, src: torch.Tensor) -> None:
    """``dst += src`` on the current stream (a reduce-scatter's sum of staged partials)."""
    dst.add_(src)


def memop_waits() -> bool:
    """Whether token waits hold the stream in the driver (no SM) rather than
    in a one-program kernel (runtime/gpu/stream_memops.py)."""
    return stream_memops.available()


def wait_values(flags: torch.Tensor, indices: tuple[int, ...], value: int) -> None:
    """Hold the current stream until ``flags[i] >= value`` for every ``i`` of
    ``indices``: driver stream waits, no SM, one driver call (and one graph
    node) for all of them."""
    stream_memops.wait_all_at_least(flags, indices, value)


def await_token(sync: SyncState, index: int) -> None:
    """Hold the current stream until ``sync``'s pad word ``index`` is at least 1 (a token)."""
    await_tokens(sync, (index,))


def await_tokens(sync: SyncState, indices: tuple[int, ...]) -> None:
    """Hold the current stream until each of ``sync``'s pad words ``indices``
    is at least 1 (tokens). With a spin limit (the debug mode) a wait kernel
    runs per word, so a wait that gives up is reported like a tile's."""
    if not indices:
        return
    if not sync.spin_limit and memop_waits():
        wait_values(sync.flags, tuple(indices), 1)
        return
    for index in indices:
        wait_flag(sync.flags, index, 0, sync.epoch, sync.spin_limit, sync.report, least=1)


def capture(issue: Callable[[], None]) -> torch.cuda.CUDAGraph:
    """A CUDA graph of what ``issue`` queues on the current stream (and the
    streams it forks from it), captured on a side stream so the caller's
    stream stays free; replay it with :func:`replay`. ``thread_local``: a
    CUDA call of another thread (NCCL's watchdog) cannot void the capture."""
    graph = torch.cuda.CUDAGraph()
    caller = torch.cuda.current_stream()
    side = _CAPTURE_STREAMS.get(caller.device)
    if side is None:
        side = _CAPTURE_STREAMS[caller.device] = torch.cuda.Stream(caller.device)
    side.wait_stream(caller)
    with torch.cuda.stream(side):
        graph.capture_begin(capture_error_mode="thread_local")
        try:
            issue()
        finally:
            graph.capture_end()
    caller.wait_stream(side)
    return graph


def replay(graph: torch.cuda.CUDAGraph) -> None:
    """Launch a captured graph on the current stream: one host call for all of its work."""
    graph.replay()


_CAPTURE_STREAMS: dict[torch.device, torch.cuda.Stream] = {}  # device -> the side stream captures run on
