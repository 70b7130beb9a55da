"""An address-level sanitizer for fused kernels on simulated ranks.

Poison (runtime/sim/delivery.py) shows a missing wait only when the unwaited data
reaches the output. This check does not depend on that, nor on any model of
the kernel: while the Triton interpreter runs a fused kernel, it sees the
actual addresses of every load and store and compares them with what the
running program (tile) has done so far:

* a load of a consumed (all-gather, all-to-all, ...) tensor's row must fall
  in a chunk that is local to this rank or whose flag this program polled
  and found raised;
* a store to a produced (reduce-scatter) tensor's row must fall in a chunk
  this program announces afterwards (a persistent program announces a chunk
  once per tile it writes): a store that no later signal of the same
  program covers, or one to a chunk already announced complete (its
  consumer may have taken it), is a violation.

Assumes: the interpreter runs programs one at a time and starts each with
``set_grid_idx`` (it does), masked-off lanes touch nothing, a tensor's rows
are its ``dim``'s index (the address's element offset divided by the dim's
stride, modulo its size), and chunks of one tensor do not overlap. Block
pointers and tensor descriptors that the interpreter turns into masked
loads and stores are covered; atomics on planned tensors are not.

Guarantees: :meth:`AddressSanitizer.report` names, for the first violations,
the rank, the program, the tensor, the row and address, the chunk, and the
kernel's source line (the interpreter runs the emitted kernel's own Python,
so the line is the emitted file's).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import torch

from syncopate.ir.analysis.deps import ConcreteChunk

SHOWN = 5  # violations spelled out in a report


@dataclass
class GuardedTensor:
    """One planned tensor of one rank: where it lies and which chunk holds each row."""

    name: str
    base: int
    end: int
    element: int
    stride: int  # the planned dim's stride, in elements
    size: int  # the planned dim's size
    chunk_of_row: np.ndarray  # row -> index into ``chunks`` (-1: no chunk)
    chunks: list[ConcreteChunk]
    consumed: bool

    @classmethod
    def of(cls, name: str, t: torch.Tensor, dim: int, chunks: list[ConcreteChunk], consumed: bool) -> GuardedTensor:
        rows = np.full(t.shape[dim], -1, dtype=np.int64)
        for k, c in enumerate(chunks):
            rows[max(c.lo, 0):max(min(c.hi, t.shape[dim]), 0)] = k
        span = max((s - 1) * st for s, st in zip(t.shape, t.stride())) + 1 if t.numel() else 0
        return cls(name, t.data_ptr(), t.data_ptr() + span * t.element_size(), t.element_size(),
                   t.stride(dim), t.shape[dim], rows, list(chunks), consumed)

    def rows(self, addresses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the addresses inside this tensor, their rows)."""
        inside = addresses[(addresses >= self.base) & (addresses < self.end)]
        elements = (inside - self.base) // self.element
        return inside, (elements // self.stride) % self.size


@dataclass
class AddressSanitizer:
    """The check for one rank's launch; install it with a DeliveryHook
    (runtime/sim/delivery.py), which reports the program starts, polls and signals."""

    rank: int
    epoch: int
    flags: torch.Tensor
    tensors: list[GuardedTensor]
    complete: Callable[[int], bool] = lambda flag: False  # a produced chunk's flag: all its signals seen
    violations: list[str] = field(default_factory=list)
    count: int = 0
    program: tuple[int, int, int] = (0, 0, 0)
    _waited: set[int] = field(default_factory=set)  # flags this program found raised
    _written: dict[int, ConcreteChunk] = field(default_factory=dict)  # produced chunks written since their signal
    _reported: set[int] = field(default_factory=set)  # chunk flags this program already has a violation for

    @classmethod
    def of(cls, rank: int, epoch: int, flags: torch.Tensor, plans: Iterable[tuple[str, bool, list[ConcreteChunk]]],
           params: Mapping[str, object], complete: Callable[[int], bool] = lambda flag: False) -> AddressSanitizer:
        """``plans``: (tensor parameter, consumed, chunks) of each planned tensor;
        ``complete(flag)``: whether a produced chunk has had all its signals."""
        tensors = []
        for name, consumed, chunks in plans:
            t = params.get(name)
            mine = [c for c in chunks if (c.dst if consumed else c.src) == rank]
            if isinstance(t, torch.Tensor) and mine:
                tensors.append(GuardedTensor.of(name, t, mine[0].dim, mine, consumed))
        return cls(rank, epoch, flags, tensors, complete)

    def start(self, program: tuple[int, int, int]) -> None:
        self.end_program()
        self.program = program
        self._waited.clear()
        self._reported.clear()

    def polled(self, flag: int) -> None:
        if int(self.flags[flag]) >= self.epoch:
            self._waited.add(flag)

    def signalled(self, flag: int) -> None:
        self._written.pop(flag, None)

    def loaded(self, addresses: np.ndarray, mask: np.ndarray) -> None:
        for t, c, row, address in self._touched(addresses, mask, consumed=True):
            if c.is_local or c.flag in self._waited or c.flag in self._reported:
                continue
            self._reported.add(c.flag)
            self._violate(f"read row {row} of '{t.name}' (address {address:#x}) in chunk {c.id} "
                          f"of @{c.plan} from rank {c.src} without waiting for it")

    def stored(self, addresses: np.ndarray, mask: np.ndarray) -> None:
        for t, c, row, address in self._touched(addresses, mask, consumed=False):
            if not self.complete(c.flag):
                self._written[c.flag] = c
            elif c.flag not in self._reported:
                self._reported.add(c.flag)
                self._violate(f"wrote row {row} of '{t.name}' (address {address:#x}) in chunk "
                              f"{c.id} of @{c.plan} after the chunk was announced complete")

    def _touched(self, addresses: np.ndarray, mask: np.ndarray,
                 consumed: bool) -> Iterator[tuple[GuardedTensor, ConcreteChunk, int, int]]:
        """(tensor, chunk, first row, its address) for each chunk of the
        consumed (or produced) tensors that the live lanes of an access touch."""
        live = addresses.reshape(-1)[mask.reshape(-1).astype(bool)].astype(np.int64)
        for t in self.tensors:
            if t.consumed != consumed:
                continue
            inside, rows = t.rows(live)
            if not len(rows):
                continue
            ks = t.chunk_of_row[rows]
            for k in np.unique(ks[ks >= 0]):
                at = int(np.flatnonzero(ks == k)[0])
                yield t, t.chunks[k], int(rows[at]), int(inside[at])

    def end_program(self) -> None:
        for c in self._written.values():
            self._violate(f"wrote rows of chunk {c.id} of @{c.plan} (rows [{c.lo}, {c.hi}) of '{c.param}') that "
                          "no later signal of this program announces", line=False)
        self._written.clear()

    def report(self) -> str | None:
        """The violations as one message, or None."""
        self.end_program()
        if not self.violations:
            return None
        more = f"\n  ... and {self.count - len(self.violations)} more" if self.count > len(self.violations) else ""
        return "address sanitizer:\n  " + "\n  ".join(self.violations) + more

    def _violate(self, what: str, line: bool = True) -> None:
        self.count += 1
        if len(self.violations) < SHOWN:
            where = f", at {kernel_line()}" if line else ""
            self.violations.append(f"rank {self.rank} program {self.program}: {what}{where}")


@functools.cache
def _skipped() -> tuple[str, ...]:
    """The folders of the interpreter, the libraries it runs on, and the
    simulator's own hooks (runtime/). Found without importing Triton: the
    command-line tools import this module before they set TRITON_INTERPRET,
    which must be set before Triton is first imported."""
    triton = importlib.util.find_spec("triton")
    origins = [np.__file__, torch.__file__, __file__] + ([triton.origin] if triton and triton.origin else [])
    return tuple(os.path.dirname(os.path.abspath(m)) + os.sep for m in origins)


def kernel_line() -> str:
    """file:line of the innermost frame outside Triton, NumPy, torch and the
    simulator: the kernel's statement."""
    skipped = _skipped()
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not os.path.abspath(name).startswith(skipped):
            return f"{name}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"
