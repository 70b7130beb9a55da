"""Timing one variant on one rank: warm-up, then the median of many iterations.

On GPUs every iteration is bracketed by CUDA events on the current stream
(launches are issued back to back, synchronized once at the end); the
collectives of torch.distributed make the current stream wait for their own
stream, so the events cover them. Host time (the Python cost of issuing one
iteration, e.g. a fused launch's argument building) is measured alongside:
when it exceeds the device time, the events measure the host. On the CPU
(``--cpu``) iterations are synchronous and timed with ``perf_counter``.

L2: not flushed by default (consecutive iterations see a warm L2, as a
layer in a real model partly does; most benchmark inputs exceed the 50 MB
L2 of an H100/H200 anyway). ``flush_bytes > 0`` zeroes a buffer of that size
before every iteration, outside the events.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Timing:
    median_ms: float
    min_ms: float
    host_ms: float  # median host time to issue one iteration
    iters: int
    times: tuple[float, ...] = ()  # every timed iteration, ms
    host_times: tuple[float, ...] = ()  # host time to issue each of them, ms


def time_run(run: Callable[[], None], device: torch.device, warmup: int = 10, iters: int = 50,
             flush_bytes: int = 0) -> Timing:
    """Median device time of ``run()`` in milliseconds on this rank."""
    if iters < 1:
        raise ValueError(f"iters must be >= 1, got {iters}")
    if warmup < 0:
        raise ValueError(f"warmup must be >= 0, got {warmup}")
    if device.type != "cuda":
        return _time_host(run, warmup, iters)
    flush = torch.empty(flush_bytes, dtype=torch.uint8, device=device) if flush_bytes > 0 else None
    for _ in range(warmup):
        run()
    torch.cuda.synchronize(device)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    host = []
    for start, end in zip(starts, ends):
        if flush is not None:
            flush.zero_()
        t0 = time.perf_counter()
        start.record()
        run()
        end.record()
        host.append((time.perf_counter() - t0) * 1e3)
    torch.cuda.synchronize(device)
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return Timing(statistics.median(times), min(times), statistics.median(host), iters, tuple(times), tuple(host))


def _time_host(run: Callable[[], None], warmup: int, iters: int) -> Timing:
    for _ in range(warmup):
        run()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1e3)
    median = statistics.median(times)
    return Timing(median, min(times), median, iters, tuple(times), tuple(times))
