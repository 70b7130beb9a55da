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

A chunk arrives only when the wait really waits for it: the first poll of a
flag that has not arrived sees it unset, and the chunk lands before the
second poll. A spin that exits on its first poll (a wait that accepts a
stale flag, say the previous launch's epoch) reads poison.

``isolated`` delivers like ``late`` and, in addition, runs every program
(tile) of the grid against a fresh world: when a program starts, every chunk
an earlier program had delivered is taken back (its rows NaN again, its flag
as before), so a tile reads real data only for chunks it waited for itself.
The mirror for produced tensors (:class:`IsolatedOutput`): each program
starts from the tensor's launch state, and only the rows of a chunk it
signals, as they are at that signal, count towards the chunk, which is
collected at its last signal, before any later program runs. Rows a tile
writes without announcing them, or after announcing them, are lost.
SM-backend chunks, copied by the kernel's own communication programs, are
not taken back.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch

from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.runtime.sim.sanitizer import AddressSanitizer

DELIVERY_ORDERS = ("plan", "reversed", "random", "late", "isolated")
IMMEDIATE = ("plan", "late", "isolated")  # orders that hand a produced chunk over at its last signal


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
    retract: Callable[[], None] | None = None  # poison the delivered rows again (isolated delivery)


@dataclass
class Outgoing:
    """A chunk a rank produces: complete after ``count`` signals."""

    chunk: ConcreteChunk
    count: int
    collect: Callable[[], None]
    done: bool = False
    isolated: IsolatedOutput | None = None  # isolated delivery: the tensor the chunk's rows are merged from


@dataclass
class IsolatedOutput:
    """A produced tensor under isolated delivery. ``initial`` is its state
    at launch (NaN, or what ``launch`` put there for a kernel that reads it,
    e.g. a zeroed split-K output); ``acc`` is what the rank's signals made
    of it, and what the chunks are collected from. ``additive``: the kernel
    adds into the tensor (atomics), so a program's part is its change."""

    target: torch.Tensor
    initial: torch.Tensor
    acc: torch.Tensor
    additive: bool

    @classmethod
    def of(cls, target: torch.Tensor, additive: bool) -> IsolatedOutput:
        return cls(target, target.detach().clone(), target.detach().clone(), additive)

    def reset(self) -> None:
        self.target.copy_(self.initial)

    def merge(self, c: ConcreteChunk) -> None:
        """Rows of ``c`` as the signalling program left them count; the
        program's copy goes back to the launch state."""
        now, start, acc = (t.narrow(c.dim, c.lo, c.hi - c.lo) for t in (self.target, self.initial, self.acc))
        if self.additive:
            acc.add_(now - start)
        else:
            written = ~torch.isnan(now)
            acc.copy_(torch.where(written, now, acc))
        now.copy_(start)


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
    outputs: list[IsolatedOutput] = field(default_factory=list)  # isolated delivery: produced tensors
    programs: int = 0  # programs started (isolated delivery)
    sanitizer: AddressSanitizer | None = None  # checks every load and store against the program's waits and signals

    def __post_init__(self) -> None:
        by_flag = {i.chunk.flag: i for i in self.incoming}
        self._sequence = [by_flag[c.flag] for c in delivery_sequence([i.chunk for i in self.incoming], self.order, self.seed)]
        self._by_flag = by_flag
        self._polled: dict[int, int] = {}  # flag -> polls that found it unset
        self._before: dict[int, int] = {}  # flag -> its value before delivery
        if self.order == "isolated" and any(i.retract is None for i in self.incoming):
            raise ValueError("isolated delivery needs every incoming chunk to be retractable")

    def _deliver(self, item: Incoming) -> None:
        if item.chunk.flag in self.delivered:
            return
        item.deliver()
        self._before[item.chunk.flag] = int(self.flags[item.chunk.flag])
        self.flags[item.chunk.flag] = self.epoch
        self.delivered.add(item.chunk.flag)

    def on_program(self) -> None:
        """Isolated delivery: a program starts against a fresh world."""
        self.programs += 1
        for flag in sorted(self.delivered):
            item = self._by_flag[flag]
            assert item.retract is not None
            item.retract()
            self.flags[flag] = self._before.pop(flag)
        self.delivered.clear()
        self._polled.clear()
        for out in self.outputs:
            out.reset()

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
        # the first poll sees the flag unset: a spin that does not poll again never gets the data
        self._polled[flag] = self._polled.get(flag, 0) + 1
        if self._polled[flag] < 2:
            return
        if self.order in ("late", "isolated"):
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
        if out.isolated is not None:
            out.isolated.merge(out.chunk)
        value = int(self.flags[flag])
        if value >= self.epoch * out.count:
            out.done = True
            if self.order in IMMEDIATE:
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

        from syncopate.runtime.sim import descriptor_atomics

        descriptor_atomics.install()  # a fused kernel may reduce through a descriptor (c_desc.atomic_add)
        builder = interpreter.interpreter_builder
        original = builder.create_atomic_rmw
        base = self.flags.data_ptr()
        size = self.flags.numel()

        def create_atomic_rmw(rmw_op, ptr, val, mask, sem, scope):
            addrs = ptr.data.reshape(-1)
            values = val.data.reshape(-1)
            # a masked-off lane touches nothing: its address (past a tensor's end) may fall inside the pad
            live = mask.data.reshape(-1) if mask is not None else [True] * len(addrs)
            hits = [(int(a), int(v)) for a, v, on in zip(addrs, values, live)
                    if on and base <= int(a) < base + 4 * size]
            sanitizer = self.sanitizer
            for addr, value in hits:
                if value == 0:
                    self.on_poll((addr - base) // 4)
                    if sanitizer is not None:
                        sanitizer.polled((addr - base) // 4)
            result = original(rmw_op, ptr, val, mask, sem, scope)
            for addr, value in hits:
                if value != 0:
                    self.on_signal((addr - base) // 4)
                    if sanitizer is not None:
                        sanitizer.signalled((addr - base) // 4)
            return result

        builder.create_atomic_rmw = create_atomic_rmw
        set_grid_idx = builder.set_grid_idx
        masked_load, masked_store = builder.create_masked_load, builder.create_masked_store
        if self.order == "isolated" or self.sanitizer is not None:
            def start_program(x, y, z):
                set_grid_idx(x, y, z)
                if self.order == "isolated":
                    self.on_program()
                if self.sanitizer is not None:
                    self.sanitizer.start((x, y, z))

            builder.set_grid_idx = start_program
        if self.sanitizer is not None:
            check = self.sanitizer

            def create_masked_load(ptrs, mask, other, *args, **kwargs):
                check.loaded(ptrs.data, mask.data)
                return masked_load(ptrs, mask, other, *args, **kwargs)

            def create_masked_store(ptrs, value, mask, *args, **kwargs):
                check.stored(ptrs.data, mask.data)
                return masked_store(ptrs, value, mask, *args, **kwargs)

            builder.create_masked_load, builder.create_masked_store = create_masked_load, create_masked_store
        try:
            yield
        finally:
            builder.create_atomic_rmw = original
            builder.set_grid_idx = set_grid_idx
            if self.sanitizer is not None:
                builder.create_masked_load, builder.create_masked_store = masked_load, masked_store
