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
from syncopate.runtime.gpu import kernel_node_args, stream_memops
from syncopate.runtime.gpu.stream_wait import wait_flag

__all__ = ["accumulate", "add_epoch", "await_token", "await_tokens", "can_retarget", "capture", "copy", "fill_words",
           "kernel_sites", "memop_waits", "memory_ops", "replay", "retarget", "set_epoch",
           "token_ops", "wait_flag", "write_epoch", "write_value", "zero_words"]


def write_value(flags: torch.Tensor, index: int, value: int) -> None:
    """``flags[index] = value`` by a stream memory operation: it needs no SM,
    so it runs even while spinning tiles hold every SM."""
    from torch.distributed._symmetric_memory import _SymmetricMemory

    _SymmetricMemory.stream_write_value32(flags.view(torch.uint32), index, value)


def set_epoch(epoch: torch.Tensor, value: int) -> None:
    """The epoch word (one int32) becomes ``value``, on the current stream:
    an eager launch's count, written like a flag."""
    write_value(epoch, 0, value)


def add_epoch(epoch: torch.Tensor) -> None:
    """The epoch word grows by 1 on the current stream: a captured launch's
    count, so that every replay counts itself."""
    epoch.add_(1)


def write_epoch(flags: torch.Tensor, index: int, epoch: torch.Tensor) -> None:
    """``flags[index] = epoch`` on the current stream, read from the epoch
    word by an elementwise kernel, so a graph replay writes its own epoch.
    A kernel, not a 4-byte copy: a CUDA graph replays a kernel node at no
    measurable host cost and a copy node at about a kernel launch's
    (docs/performance.md, graph-node costs). The kernel needs a free SM:
    used only for reduce-scatter arrivals, which no tile spins on, so the
    tiles that hold the SMs end without it."""
    torch.add(epoch, 0, out=flags[index:index + 1])


def fill_words(flags: torch.Tensor, words: torch.Tensor, value: int) -> None:
    """``flags[words] = value`` on the current stream, one kernel (``words``:
    int64 indices on the device): it needs a free SM (ce flags of a grid
    that leaves one, runtime/gpu/ce.py)."""
    flags.index_fill_(0, words, value)


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


def memory_ops(ops: tuple[tuple[str, torch.Tensor, int, int], ...]) -> None:
    """Driver stream memory operations on int32 words, in order, as one batch
    on the current stream: ``("write", words, index, value)`` sets the word,
    ``("wait", words, index, value)`` holds the stream until it is at least
    ``value``. No SM; one driver call, and one CUDA-graph node, for all."""
    stream_memops.batch(tuple((kind, words.data_ptr() + index * words.element_size(), value)
                              for kind, words, index, value in ops))


def token_ops(sync: SyncState, ops: tuple[tuple[str, torch.Tensor, int, int], ...]) -> None:
    """Token writes and waits, and waits for a constant flag value such as a
    region's tile count (as :func:`memory_ops`; waits only on ``sync``'s
    own pad), in order, on the current stream. Each memory
    operation node of a CUDA graph costs host time at every replay, about a
    kernel launch's, whatever it holds: so they go as one batch. With a spin
    limit (the debug mode), or without the driver bindings, each wait is a
    wait kernel, so a wait that gives up is reported like a tile's, and each
    write a stream write."""
    if not ops:
        return
    if not sync.spin_limit and memop_waits():
        memory_ops(ops)
        return
    for kind, words, index, value in ops:
        if kind == "write":
            write_value(words, index, value)
        else:
            wait_flag(words, index, 0, sync.epoch, sync.spin_limit, sync.report, least=value)


def await_token(sync: SyncState, index: int) -> None:
    """Hold the current stream until ``sync``'s pad word ``index`` is at least 1 (a token)."""
    await_tokens(sync, (index,))


def await_tokens(sync: SyncState, indices: tuple[int, ...]) -> None:
    """Hold the current stream until each of ``sync``'s pad words ``indices`` is at least 1 (tokens)."""
    token_ops(sync, tuple(("wait", sync.flags, index, 1) for index in indices))


def capture(issue: Callable[[], None]) -> torch.cuda.CUDAGraph:
    """A CUDA graph of what ``issue`` queues on the current stream (and the
    streams it forks from it), captured on a side stream so the caller's
    stream stays free; replay it with :func:`replay`. ``thread_local``: a
    CUDA call of another thread (NCCL's watchdog) cannot void the capture."""
    graph = _kept_graph()
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
    if _KEEP_GRAPH:
        graph.instantiate()
    return graph


def can_retarget() -> bool:
    """Whether captured graphs here keep their nodes and the driver
    bindings can rewrite their kernel arguments (:func:`retarget`)."""
    return _KEEP_GRAPH and stream_memops.driver_bindings() is not None


def kernel_sites(graph: torch.cuda.CUDAGraph, addresses: tuple[int, ...]) -> list | None:
    """Where ``graph``'s kernels take ``addresses`` as arguments, so that
    :func:`retarget` can point them elsewhere; None: they cannot all be found
    (runtime/gpu/kernel_node_args.py)."""
    return kernel_node_args.find(graph, addresses) if _KEEP_GRAPH else None


def retarget(graph: torch.cuda.CUDAGraph, sites: list, addresses: tuple[int, ...]) -> bool:
    """Point ``graph``'s kernel arguments at ``sites`` to ``addresses``
    before its next replay (False: they cannot be, nothing changed)."""
    return kernel_node_args.rewrite(graph, sites, addresses)


def _kept_graph() -> torch.cuda.CUDAGraph:
    """A graph whose captured nodes stay readable after capture (for
    :func:`kernel_sites`), where this torch can keep them."""
    global _KEEP_GRAPH
    if _KEEP_GRAPH:
        try:
            return torch.cuda.CUDAGraph(keep_graph=True)
        except TypeError:
            _KEEP_GRAPH = False
    return torch.cuda.CUDAGraph()


def replay(graph: torch.cuda.CUDAGraph) -> None:
    """Launch a captured graph on the current stream: one host call for all of its work."""
    graph.replay()


_KEEP_GRAPH = True  # False once this torch turns keep_graph down: graphs are then instantiated at capture's end
_CAPTURE_STREAMS: dict[torch.device, torch.cuda.Stream] = {}  # device -> the side stream captures run on
