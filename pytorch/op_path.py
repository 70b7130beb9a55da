"""Which implementation of ``syncopate.ops`` a call the fused kernel accepts
runs: the fused kernel (pytorch/fused_ops.py), the unfused collective +
``torch.matmul`` (pytorch/unfused_ops.py), or, for small calls on CUDA
(pytorch/replayed_ops.py says which), that unfused pair replayed from a
CUDA graph, whichever is faster for its shape, measured once and cached.

The fused kernel wins on large shapes and loses on small ones, where its
host overhead is most of the call; no fixed threshold holds across GPUs,
group sizes and dtypes, so the op measures instead of guessing. The choice
is kept per key: op, group, dtype, A's rows (leading dims flattened) rounded
up to the next power of two, A's last dim, the B shapes, and ``return_A``
for the gather; ``reduce_op`` does not matter (``avg`` divides either
path's result). A server whose token count varies measures once per
power-of-two bucket, as the fused path keeps one buffer per bucket.

``SYNCOPATE_OPS_PATH`` (read at every call, so every rank must see the
same value) is ``auto`` (the default: measure), ``fused``, ``unfused`` or
``replayed`` (take that path for every call the fused kernel accepts, time
nothing: for benchmarks and debugging; ``replayed`` runs unfused where
the replay does not apply); another value raises ``ValueError``. Refused
calls run unfused whatever the variable says.

Measuring (the first eager call of a key): each path runs ``WARMUPS`` times
(the fused one compiles on its first call and captures its launch graphs on
the next ones; the replayed one captures its graph on its second), then
each of ``ROUNDS`` rounds times a block of ``CALLS`` calls of each path,
the ranks aligned before every block (a late rank would bias it). A block is timed with a host
clock between two ``torch.cuda.synchronize()``: what an eager caller
waits, host overhead included. A path's time is its fastest block's mean
per call, then the slowest rank's (an all-reduce MAX over the op's group):
every rank compares the same numbers and takes the same path, since a
rank that runs the fused kernel while a peer runs NCCL hangs. A path
other than the unfused one is taken only where it is at least ``MARGIN``
faster than the unfused one (the fastest such path; ties to the fused
one): blocks of one path differ by a few percent from run to run, and the
unfused path is what NCCL + cuBLAS code runs, so a close call keeps the op
from running slower than the code it replaces. The measuring call returns the result of the chosen path's last
call: every call of a path computes the same values from the same inputs
into fresh tensors.

A CUDA graph replays no host work, so what is faster eagerly need not be
faster in a graph (the fused kernel's host overhead is most of a small
call's eager time, nothing of its replay). On CUDA the measuring call
therefore also times each of the fused and the unfused path's device time:
``ROUNDS`` blocks of ``CALLS`` calls queued behind a sleep kernel long
enough for the host to queue them all, timed with CUDA events (a replay
runs the unfused path's own kernels and collectives, so it has no device
time of its own). The fastest block's mean, then the slowest rank's, gives
the path taken under capture (the fused one only where it is ``MARGIN``
faster): the key's ``graph_path``, logged with its reason when a capture
first takes it. Without device times (CPU groups)
a capture takes the eager choice.

Assumed: every rank of the group calls the op with the same keys in the
same order (as the collectives already require), so all ranks measure
together. Under CUDA-graph capture nothing can be timed: a key with a
choice runs its graph path; one without runs fused and stays unmeasured,
so a graph user who wants the measured path warms up eagerly first (which
a capture of the fused path needs anyway: its first call of a shape
allocates and builds launch tables).

Every call is counted in ``syncopate.stats()``; each key's choice is
logged once at INFO on the ``syncopate`` logger with its reason, e.g.
``syncopate.ops.all_gather_matmul on 1024x8192, 8192x2048 (rows bucket
1024): unfused (measured 0.363 ms fused vs 0.132 ms unfused per call,
slowest rank of 4)``. No choice here warns: the ``RuntimeWarning`` of
unfused_ops.warn_unfused is for calls the fused kernel refuses.
"""

from __future__ import annotations

import functools
import math
import os
import time
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, NamedTuple

import torch

from syncopate.pytorch import op_stats, unfused_ops

ENV = "SYNCOPATE_OPS_PATH"
MODES = ("auto", "fused", "unfused", "replayed")
PATHS = ("fused", "unfused", "replayed")  # in the order ties are broken
GRAPH_PATHS = ("fused", "unfused")  # what a capture can take: the replayed path records the unfused one there
# A fused launch reaches its steady state (a replayed graph) on the second sighting of its output's address;
# with the previous result kept alive two addresses alternate, so four warm calls reach it for both.
# A block of CALLS calls spreads the first call's host latency (the pipeline's fill) thin: with few calls a
# path that does less host work but more device work (the replay's input and output copies) wins a block
# yet loses where calls run back to back and wait on the device.
WARMUPS, ROUNDS, CALLS = 4, 3, 16
MARGIN = 0.05  # how much faster than the unfused path another path must be to be taken


class Key(NamedTuple):
    """The calls that share a choice (see the module docstring)."""

    op: str
    group_name: str
    dtype: torch.dtype
    rows_bucket: int
    width: int  # A's last dim
    b_shapes: tuple[tuple[int, ...], ...]
    return_A: bool | None  # None for the reduce-scatter


@dataclass(frozen=True)
class Choice:
    path: str  # one of PATHS
    fused_s: float  # seconds per call, slowest rank
    unfused_s: float
    ranks: int
    replayed_s: float | None = None  # None: the replay was not measured (it does not apply)
    graph_path: str | None = None  # one of GRAPH_PATHS, the path under capture; None: no device times
    fused_device_s: float | None = None  # device seconds per call, slowest rank
    unfused_device_s: float | None = None

    @cached_property
    def reason(self) -> str:
        replayed = "" if self.replayed_s is None else f" vs {self.replayed_s * 1e3:.3f} ms replayed"
        return (f"measured {self.fused_s * 1e3:.3f} ms fused vs {self.unfused_s * 1e3:.3f} ms unfused{replayed} per "
                f"call, slowest rank of {self.ranks}")

    def taken(self, captured: bool) -> tuple[str, str]:
        """The path of a call, and why: under capture (``captured``) the
        path of the measured device times, else the eager choice."""
        if not captured:
            return self.path, self.reason
        if self.graph_path is None:
            return self.path, f"under CUDA-graph capture, no device times: the eager choice ({self.reason})"
        return self.graph_path, (f"under CUDA-graph capture: measured {self.fused_device_s * 1e3:.3f} ms fused vs "
                                 f"{self.unfused_device_s * 1e3:.3f} ms unfused of device time per call, slowest "
                                 f"rank of {self.ranks}")


_CHOICES: dict[Key, Choice] = {}  # key -> the measured choice


def mode() -> str:
    """``SYNCOPATE_OPS_PATH``, checked: "auto" (unset or empty), "fused" or "unfused"."""
    value = os.environ.get(ENV) or "auto"
    if value not in MODES:
        raise ValueError(f"{ENV}={value!r}: expected one of {', '.join(MODES)}")
    return value


def key(op: str, group_name: str, A: torch.Tensor, Bs: list[torch.Tensor], return_A: bool | None = None) -> Key:
    """The key of a call of ``op`` on ``A`` and ``Bs`` (``return_A`` None for the reduce-scatter)."""
    rows = math.prod(A.shape[:-1])
    bucket = 1 << max(rows - 1, 0).bit_length()
    return Key(op, group_name, A.dtype, bucket, A.shape[-1], tuple(tuple(B.shape) for B in Bs), return_A)


def choices() -> dict[Key, Choice]:
    """The measured choices so far, by key."""
    return dict(_CHOICES)


def run(op_key: Key, shapes: tuple, fused: Callable[[], Any], unfused: Callable[[], Any],
        replayed: Callable[[], Any] | None = None) -> Any:
    """The result of ``fused()``, ``unfused()`` or ``replayed()`` (the same
    call on each path; ``replayed`` None where the replay does not apply),
    whichever this key's choice names; the first eager call of a key under
    ``auto`` measures them and chooses. ``shapes`` are the call's tensor
    shapes, for the log."""
    paths = {"fused": fused, "unfused": unfused, "replayed": replayed or unfused}
    forced = mode()
    if forced != "auto":
        why = f"forced by {ENV}={forced}"
        if forced == "replayed" and replayed is None:
            forced, why = "unfused", f"{why}, which does not apply to this call"
        return _take(op_key, shapes, forced, why, paths)
    choice = _CHOICES.get(op_key)
    if choice is not None:
        return _take(op_key, shapes, *choice.taken(capturing()), paths)
    if capturing():
        return _take(op_key, shapes, "fused", "under CUDA-graph capture before any eager call of this bucket: "
                     "nothing can be timed, an eager call measures", paths)
    candidates = {"fused": fused, "unfused": unfused, **({"replayed": replayed} if replayed else {})}
    choice, result = _measure(op_key.group_name, candidates)
    _CHOICES[op_key] = choice
    _note(op_key, shapes, choice.path, choice.reason)
    return result


def settled_path(op_key: Key, replay_applies: bool = False, captured: bool = False) -> str | None:
    """The path every call of ``op_key`` takes from now on, eagerly or under
    capture (``captured``): the forced one, or the measured choice; None
    while it is still to be measured."""
    forced = mode()
    if forced != "auto":
        return "unfused" if forced == "replayed" and not replay_applies else forced
    choice = _CHOICES.get(op_key)
    return None if choice is None else choice.taken(captured)[0]


def _take(op_key: Key, shapes: tuple, path: str, why: str, paths: dict[str, Callable[[], Any]]) -> Any:
    _note(op_key, shapes, path, why)
    return paths[path]()


def _note(op_key: Key, shapes: tuple, path: str, why: str) -> None:
    op_stats.count(op_key.op, path)
    op_stats.log_once(("path", op_key, path, why), "syncopate.ops.%s on %s (rows bucket %d): %s (%s)", op_key.op,
                      op_stats.shown(shapes), op_key.rows_bucket, path, why)


def _measure(group_name: str, candidates: dict[str, Callable[[], Any]]) -> tuple[Choice, Any]:
    """Time the candidate paths on every rank, agree on the slowest rank's
    times; the choice and the chosen path's result."""
    last: dict[str, Any] = {}

    def keeping(path: str, fn: Callable[[], Any]) -> Callable[[], None]:
        def call() -> None:
            last[path] = fn()
        return call

    calls = {path: keeping(path, fn) for path, fn in candidates.items()}
    for call in calls.values():
        for _ in range(WARMUPS):
            call()
    best = dict.fromkeys(calls, math.inf)
    for _ in range(ROUNDS):
        for path, call in calls.items():
            align(group_name)
            best[path] = min(best[path], time_calls(call, CALLS))
    device = _device_times(group_name, calls, best)
    agreed = agree([*best.values(), *device.values()], group_name)
    times, device = dict(zip(calls, agreed)), dict(zip(device, agreed[len(calls):]))
    path = faster_than_unfused(times, PATHS)
    graph_path = faster_than_unfused(device, GRAPH_PATHS) if device else None
    choice = Choice(path, times["fused"], times["unfused"], unfused_ops.group_size(group_name), times.get("replayed"),
                    graph_path, device.get("fused"), device.get("unfused"))
    return choice, last[path]


def faster_than_unfused(seconds: dict[str, float], order: tuple[str, ...]) -> str:
    """The path to take given each path's ``seconds`` per call: the fastest
    (ties in ``order``), unless it is not the unfused path and is less than
    ``MARGIN`` faster than it, in which case the unfused path."""
    fastest = min(seconds, key=lambda p: (seconds[p], order.index(p)))
    if fastest != "unfused" and seconds[fastest] > seconds["unfused"] * (1 - MARGIN):
        return "unfused"
    return fastest


def _device_times(group_name: str, calls: dict[str, Callable[[], None]], eager: dict[str, float]) -> dict[str, float]:
    """The fastest block's device seconds per call of each of GRAPH_PATHS on
    this rank; empty where device time cannot be measured. ``eager``: each
    path's eager seconds per call, which bound the time its calls take the
    host to queue."""
    if not device_timed(group_name):
        return {}
    best = dict.fromkeys(GRAPH_PATHS, math.inf)
    for _ in range(ROUNDS):
        for path in GRAPH_PATHS:
            align(group_name)
            best[path] = min(best[path], device_time_calls(calls[path], CALLS, eager[path] * CALLS))
    return best


# What touches the device and the group: capturing, time_calls, device_timed, device_time_calls, align and agree;
# CPU tests replace them.

def capturing() -> bool:
    """Whether this thread's CUDA stream is being captured into a graph
    (never before CUDA is initialised: asking ``is_available`` instead reads
    the environment at every call, a visible share of a small call's host time)."""
    return torch.cuda.is_initialized() and torch.cuda.is_current_stream_capturing()


def _synchronize() -> None:
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def time_calls(fn: Callable[[], Any], calls: int) -> float:
    """Seconds per call of ``calls`` calls of ``fn``, host and device: what an eager caller waits."""
    _synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    _synchronize()
    return (time.perf_counter() - start) / calls


def device_timed(group_name: str) -> bool:
    """Whether the group's calls run on CUDA, so their device time can be measured (and a capture happen)."""
    return _group_device(unfused_ops.process_group(group_name)).type == "cuda"


def device_time_calls(fn: Callable[[], Any], calls: int, host_s: float) -> float:
    """Device seconds per call of ``calls`` calls of ``fn``, queued behind a
    sleep kernel of twice ``host_s`` (what queuing them takes the host, at
    most) so that the device runs them back to back, as a graph replay
    does."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    _synchronize()
    torch.cuda._sleep(int(2 * host_s * _sleep_cycles_per_second()) + 1)
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    _synchronize()
    return start.elapsed_time(end) * 1e-3 / calls


@functools.cache
def _sleep_cycles_per_second() -> float:
    """What ``torch.cuda._sleep`` spins per second on this device (its clock), timed once."""
    cycles = 10_000_000
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(1000)  # load the kernel outside the timed region
    start.record()
    torch.cuda._sleep(cycles)
    end.record()
    end.synchronize()
    return cycles / (start.elapsed_time(end) * 1e-3)


def _group_device(group: Any) -> torch.device:
    from syncopate.pytorch.worlds import backend_name

    return torch.device("cuda", torch.cuda.current_device()) if "nccl" in backend_name(group) else torch.device("cpu")


def align(group_name: str) -> None:
    """Return when every rank of the group has reached this point (within a small all-reduce's latency)."""
    import torch.distributed as dist

    group = unfused_ops.process_group(group_name)
    dist.all_reduce(torch.zeros(1, device=_group_device(group)), group=group)
    _synchronize()


def agree(times: list[float], group_name: str) -> list[float]:
    """Each entry of ``times``, the largest over the group's ranks: the same list on every rank."""
    import torch.distributed as dist

    group = unfused_ops.process_group(group_name)
    t = torch.tensor(times, dtype=torch.float64, device=_group_device(group))
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=group)
    return t.tolist()
