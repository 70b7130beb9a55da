"""The unfused path of ``syncopate.ops`` replayed from a CUDA graph: for
small calls, which the host's time bounds rather than the GPU's.

An eager NCCL collective + cuBLAS matmul costs 80-140 us of host time per
call on the H100 hosts this was measured on: more than the GPU needs for
a small call, so its time is the host's, and any Python in front of it
(the op's own layer) adds to it. A replay costs one launch. A replayed call
copies its input into a static buffer, replays a graph that holds the
collective and the matmul(s), which write static outputs, and returns
clones of those outputs: fresh tensors, as the op promises. The two copies
cost GPU time, so the replay pays only where the GPU is idle part of the
call; pytorch/op_path.py measures it beside the eager paths and takes it
only where it is faster, and :func:`applies` offers it only to calls of at
most ``MAX_FLOPS``, where the matmul is short against the host's time.

What a graph does, per op (rows collectives of contiguous tensors only, as
NCCL + cuBLAS code issues them; :func:`applies` checks):

* all-gather + matmul: this rank's rows are copied into a static gathered
  buffer; the graph gathers in place and multiplies the buffer by each B;
* matmul + reduce-scatter / all-reduce: A is copied into a static buffer;
  the graph multiplies it by B and reduce-scatters (all-reduces) the
  product into a static output.

Graphs are kept per exact call: op, group, shapes, strides, dtypes, the
B tensors' addresses (a graph reads them at every replay, so an in-place
weight update is seen), plain arguments and the current stream (static
buffers are reused, so calls on two streams must not share them). A call
is captured on its ``CAPTURE_AT``-th sighting; before that it runs eagerly,
so a server whose token count varies captures nothing for a one-off shape
(capturing allocates). At most ``LIMIT`` graphs are kept, least recently
used dropped first, after a device synchronisation (a replay still in
flight reads the dropped graph's memory).

Capture is the GPU World's (``runtime/gpu/device.capture``): a side
stream, thread-local capture mode, and none of ``torch.cuda.graph``'s
device synchronisation, garbage collection and cache emptying. Assumed: the group's NCCL communicator is set up (the call's
eager sightings ran collectives on it), and every rank of the group makes
the same calls in the same order, as the collectives already require; a
rank that replays where a peer runs eagerly still issues the same
collective, so a divergence costs time, never a hang.

Under an enclosing capture nothing is replayed or captured: the caller's
graph records the eager path.

NCCL's communicator destroy waits until no CUDA graph holds work captured
on it, so a graph kept here would hang ``destroy_process_group`` (and the
process's exit). The first capture therefore wraps
``torch.distributed.destroy_process_group`` to drop every graph first, and
registers the same drop to run at exit.
"""

from __future__ import annotations

import atexit
import functools
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from syncopate.pytorch import unfused_ops
from syncopate.runtime.gpu import direct_collectives
from syncopate.pytorch.unfused_ops import process_group

CAPTURE_AT = 2  # the sighting of a call that captures its graph
LIMIT = 16  # graphs kept
MAX_FLOPS = 2 ** 36  # the largest local matmul (2 * m * n * k) offered the replay: about 0.1 ms on an H100


@dataclass
class Replay:
    """A captured call: its graph, the static buffer the input is copied
    into, and the static results whose clones a replay returns."""

    graph: Any
    static_in: torch.Tensor
    static_out: list[torch.Tensor]


_GRAPHS: OrderedDict[tuple, Replay] = OrderedDict()  # call key -> replay, least recently used first
_SEEN: dict[tuple, int] = {}  # call key -> sightings before its capture


def applies(A: torch.Tensor, Bs: list[torch.Tensor], dim: int, group_name: str) -> bool:
    """Whether a call may be replayed: CUDA tensors of an NCCL group, the
    collective on rows of a contiguous tensor, and a small matmul."""
    from syncopate.pytorch.worlds import backend_name

    if not (A.is_cuda and A.is_contiguous() and unfused_ops.rows_dim(A.shape, dim) and Bs):
        return False
    if "nccl" not in backend_name(process_group(group_name)):
        return False
    rows = A.numel() // A.shape[-1] if A.shape[-1] else 0
    flops = sum(2 * rows * B.shape[0] * B.shape[1] for B in Bs)
    return flops <= MAX_FLOPS


def all_gather_matmul(A_shard: torch.Tensor, Bs: list[torch.Tensor], gather_dim: int, group_name: str,
                      return_A: bool) -> tuple[torch.Tensor | None, list[torch.Tensor]]:
    key = ("ag", group_name, _layout(A_shard), *[_layout(B, True) for B in Bs], gather_dim, _stream())
    replay = _replay(key, lambda: _capture_gather(A_shard, Bs, group_name))
    if replay is None:
        return unfused_ops.all_gather_matmul(A_shard, Bs, gather_dim, group_name, return_A)
    group = process_group(group_name)
    rows = A_shard.numel() // A_shard.shape[-1]
    rank = torch.distributed.get_rank(group)
    replay.static_in[rank * rows:(rank + 1) * rows].copy_(A_shard.reshape(rows, -1))
    replay.graph.replay()
    shape = list(A_shard.shape)
    shape[gather_dim] *= group.size()
    outs = [out.view(*shape[:-1], -1).clone() for out in replay.static_out]
    return (replay.static_in.view(shape).clone() if return_A else None), outs


def matmul_reduce_scatter(A: torch.Tensor, B: torch.Tensor, reduce_op: str, scatter_dim: int,
                          group_name: str) -> torch.Tensor:
    key = ("rs", group_name, _layout(A), _layout(B, True), scatter_dim, _stream())
    replay = _replay(key, lambda: _capture_reduced(A, B, group_name, scatter=True))
    if replay is None:
        return unfused_ops.matmul_reduce_scatter(A, B, reduce_op, scatter_dim, group_name)
    replay.static_in.copy_(A)
    replay.graph.replay()
    shape = [*A.shape[:-1], B.shape[1]]
    shape[scatter_dim] //= unfused_ops.group_size(group_name)
    out = replay.static_out[0].view(shape).clone()
    return out.div_(unfused_ops.group_size(group_name)) if reduce_op == "avg" else out


def matmul_all_reduce(A: torch.Tensor, B: torch.Tensor, reduce_op: str, group_name: str) -> torch.Tensor:
    key = ("ar", group_name, _layout(A), _layout(B, True), _stream())
    replay = _replay(key, lambda: _capture_reduced(A, B, group_name, scatter=False))
    if replay is None:
        return unfused_ops.matmul_all_reduce(A, B, reduce_op, group_name)
    replay.static_in.copy_(A)
    replay.graph.replay()
    out = replay.static_out[0].view(*A.shape[:-1], B.shape[1]).clone()
    return out.div_(unfused_ops.group_size(group_name)) if reduce_op == "avg" else out


def clear() -> None:
    """Drop every graph and sighting (after the device finished with them)."""
    if _GRAPHS and torch.cuda.is_initialized():
        torch.cuda.synchronize()
    _GRAPHS.clear()
    _SEEN.clear()


def _release_before_destroy() -> None:
    """Make ``destroy_process_group`` and the process's exit drop the graphs first (see the module docstring)."""
    import torch.distributed as dist
    import torch.distributed.distributed_c10d as c10d

    original = c10d.destroy_process_group
    if getattr(original, "drops_replayed_graphs", False):
        return

    @functools.wraps(original)
    def destroy_process_group(*args: Any, **kwargs: Any) -> Any:
        clear()
        return original(*args, **kwargs)

    destroy_process_group.drops_replayed_graphs = True
    c10d.destroy_process_group = dist.destroy_process_group = destroy_process_group
    atexit.register(clear)


def _layout(t: torch.Tensor, address: bool = False) -> tuple:
    return (t.shape, t.stride(), t.dtype, t.device, t.data_ptr() if address else None)


def _stream() -> int:
    return torch.cuda.current_stream().cuda_stream


def _replay(key: tuple, capture: Callable[[], Replay]) -> Replay | None:
    """The call's replay, captured now on its ``CAPTURE_AT``-th sighting;
    None while it runs eagerly (or under an enclosing capture)."""
    if torch.cuda.is_current_stream_capturing():
        return None
    replay = _GRAPHS.get(key)
    if replay is not None:
        _GRAPHS.move_to_end(key)
        return replay
    seen = _SEEN.get(key, 0) + 1
    if seen < CAPTURE_AT:
        if len(_SEEN) >= 4 * LIMIT:  # a server's one-off shapes: forget them rather than grow
            _SEEN.clear()
        _SEEN[key] = seen
        return None
    _SEEN.pop(key, None)
    _release_before_destroy()
    if len(_GRAPHS) >= LIMIT:
        torch.cuda.synchronize()
        _GRAPHS.popitem(last=False)
    replay = _GRAPHS[key] = capture()
    return replay


def _captured(static_in: torch.Tensor, body: Callable[[], list[torch.Tensor]]) -> Replay:
    """``body`` captured into a graph on the GPU World's capture stream (runtime/gpu/device.py)."""
    from syncopate.runtime.gpu import device

    static_out: list[torch.Tensor] = []
    graph = device.capture(lambda: static_out.extend(body()))
    return Replay(graph, static_in, static_out)


def _capture_gather(A_shard: torch.Tensor, Bs: list[torch.Tensor], group_name: str) -> Replay:
    group = process_group(group_name)
    rows, width = A_shard.numel() // A_shard.shape[-1], A_shard.shape[-1]
    rank = torch.distributed.get_rank(group)
    gathered = A_shard.new_empty(group.size() * rows, width)

    def body() -> list[torch.Tensor]:
        direct_collectives.all_gather_into(gathered, gathered[rank * rows:(rank + 1) * rows], group)
        return [torch.matmul(gathered, B) for B in Bs]

    return _captured(gathered, body)


def _capture_reduced(A: torch.Tensor, B: torch.Tensor, group_name: str, scatter: bool) -> Replay:
    group = process_group(group_name)
    static_in = torch.empty_like(A, memory_format=torch.contiguous_format)

    def body() -> list[torch.Tensor]:
        product = torch.matmul(static_in, B).reshape(-1, B.shape[1])
        if not scatter:
            direct_collectives.all_reduce(product, group)
            return [product]
        out = product.new_empty(product.shape[0] // group.size(), product.shape[1])
        direct_collectives.reduce_scatter_into(out, product, group)
        return [out]

    return _captured(static_in, body)
