"""Simulated ranks: W ranks in one process, kernels in the Triton interpreter.

Each rank has its own signal pad (an int32 tensor, one flag per chunk); data
moves between ranks' tensors with torch copies. Ranks run one after the
other: no kernel of this project waits for another rank's *kernel* (gathered
data comes from inputs, reduce-scatter partials are collected as they are
announced), so this is faithful.

Delivery is driven by the kernel itself. The interpreter executes every
atomic through ``interpreter_builder.create_atomic_rmw``; while a fused
kernel runs, :class:`DeliveryHook` wraps it and sees each poll of a flag
(``atomic_add(flag, 0)``, a wait) and each increment (a signal):

* a poll of a chunk that has not arrived delivers chunks according to the
  order: ``plan`` (by step, then id), ``reversed``, ``random`` (seeded
  shuffle) deliver their sequence up to and including the polled chunk;
  ``late`` delivers only the polled chunk. So under ``late`` a chunk a tile
  reads without waiting is still missing (poisoned with NaN) when it is read;
* an increment that completes a produced chunk (all its tiles signalled)
  hands it to the consumer at once (``plan``, ``late``) or queues it
  (``reversed``, ``random``: announced chunks are reduced in that order after
  the kernel), so a signal raised before the data is written shows up as a
  wrong result.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch

from syncopate.ir.analysis.deps import ConcreteChunk

DELIVERY_ORDERS = ("plan", "reversed", "random", "late")


class SimulationError(Exception):
    """A fused kernel that cannot be right: a chunk never announced, a wait
    on something that can never arrive."""


def delivery_sequence(chunks: list[ConcreteChunk], order: str, seed: int) -> list[ConcreteChunk]:
    """The order in which chunks reach a rank."""
    if order not in DELIVERY_ORDERS:
        raise ValueError(f"unknown delivery order '{order}', expected one of {', '.join(DELIVERY_ORDERS)}")
    seq = sorted(chunks, key=lambda c: (c.step, c.plan, c.id))
    if order == "reversed":
        seq.reverse()
    elif order == "random":
        random.Random(seed).shuffle(seq)
    return seq


@dataclass
class Incoming:
    """Chunks a rank waits for during one launch, and where their data comes from."""

    chunk: ConcreteChunk
    deliver: Callable[[], None]


@dataclass
class Outgoing:
    """A chunk a rank produces: complete after ``count`` signals."""

    chunk: ConcreteChunk
    count: int
    collect: Callable[[], None]
    done: bool = False


@dataclass
class DeliveryHook:
    """Delivers chunks to one running kernel; see the module docstring."""

    flags: torch.Tensor
    epoch: int
    order: str
    seed: int
    incoming: list[Incoming] = field(default_factory=list)
    outgoing: dict[int, Outgoing] = field(default_factory=dict)  # flag index -> chunk
    delivered: set[int] = field(default_factory=set)
    queued: list[Outgoing] = field(default_factory=list)
    polls: int = 0
    lost: set[int] = field(default_factory=set)  # flags never delivered (fault injection)
    bounded: bool = False  # the kernel's spins are bounded: let a wait on a lost chunk run out

    def __post_init__(self) -> None:
        by_flag = {i.chunk.flag: i for i in self.incoming}
        self._sequence = [by_flag[c.flag] for c in delivery_sequence([i.chunk for i in self.incoming], self.order, self.seed)]
        self._by_flag = by_flag

    def _deliver(self, item: Incoming) -> None:
        if item.chunk.flag in self.delivered:
            return
        item.deliver()
        self.flags[item.chunk.flag] = self.epoch
        self.delivered.add(item.chunk.flag)

    def on_poll(self, flag: int) -> None:
        self.polls += 1
        if flag in self.lost:
            if not self.bounded:
                raise SimulationError(f"a tile waits for signal-pad flag {flag}, a lost chunk: without a spin limit it would hang")
            return
        if flag not in self._by_flag:
            if int(self.flags[flag]) < self.epoch:
                raise SimulationError(
                    f"a tile waits for signal-pad flag {flag}, which no chunk delivered to this rank sets "
                    "(the wait would hang on a GPU)"
                )
            return
        if flag in self.delivered:
            return
        if self.order == "late" and flag in self._by_flag:
            self._deliver(self._by_flag[flag])
            return
        for item in self._sequence:
            if item.chunk.flag not in self.lost:
                self._deliver(item)
            if item.chunk.flag == flag:
                return

    def on_signal(self, flag: int) -> None:
        out = self.outgoing.get(flag)
        if out is None or out.done:
            return
        value = int(self.flags[flag])
        if value >= self.epoch * out.count:
            out.done = True
            if self.order in ("plan", "late"):
                out.collect()
            else:
                self.queued.append(out)

    def finish(self) -> None:
        """After the kernel: deliver what nobody waited for, collect queued
        chunks, and fail on chunks that were never completely announced."""
        for item in self._sequence:
            if item.chunk.flag not in self.lost:
                self._deliver(item)
        queued = self.queued if self.order == "reversed" else list(self.queued)
        if self.order == "reversed":
            queued = queued[::-1]
        elif self.order == "random":
            random.Random(self.seed).shuffle(queued)
        for out in queued:
            out.collect()
        missing = [o for o in self.outgoing.values() if not o.done]
        if missing:
            lines = [
                f"chunk {o.chunk.id} of @{o.chunk.plan} (rows [{o.chunk.lo}, {o.chunk.hi}) for rank {o.chunk.dst}): "
                f"flag {int(self.flags[o.chunk.flag])}, expected {self.epoch * o.count} ({o.count} tile signals)"
                for o in missing
            ]
            raise SimulationError("produced chunks never announced complete:\n  " + "\n  ".join(lines))

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """Route the interpreter's atomics on ``flags`` through this hook."""
        from triton.runtime import interpreter

        builder = interpreter.interpreter_builder
        original = builder.create_atomic_rmw
        base = self.flags.data_ptr()
        size = self.flags.numel()

        def create_atomic_rmw(rmw_op, ptr, val, mask, sem, scope):
            addrs = ptr.data.reshape(-1)
            values = val.data.reshape(-1)
            hits = [(int(a), int(v)) for a, v in zip(addrs, values) if base <= int(a) < base + 4 * size]
            for addr, value in hits:
                if value == 0:
                    self.on_poll((addr - base) // 4)
            result = original(rmw_op, ptr, val, mask, sem, scope)
            for addr, value in hits:
                if value != 0:
                    self.on_signal((addr - base) // 4)
            return result

        builder.create_atomic_rmw = create_atomic_rmw
        try:
            yield
        finally:
            builder.create_atomic_rmw = original
