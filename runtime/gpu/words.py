"""The signal pad's words: its size, the constant words at its top, and how
the protocol writes one word of this rank's pad or of a peer's.

Eagerly a word is written by a stream memory operation
(``device.write_value``): it needs no SM, so it runs while spinning tiles
hold every SM, and it is one driver call. Inside CUDA-graph capture that
operation becomes a memory-operation node, which the driver processes on
the host at every replay: each one adds about as much host time to a graph
launch as a small kernel launch costs, whereas kernel and copy nodes add
next to none (docs/performance.md, "graph nodes"). A copy between two
GPUs' memory runs on a copy engine, so like a memory operation it needs no
SM; a copy within one GPU's memory may run as a kernel, which does. So
inside capture a word is written by a four-byte peer copy from a constant
word: a peer's word from this rank's constants, this rank's own word from
the next rank's constants.

Assumes: every pad holds ``CONSTANT_VALUES`` at ``CONSTANTS_AT`` from its
allocation on (``SymmetricMemory.new_sync_state``) and nothing else writes
those words; a word written inside capture takes one of those values.
Guarantees: :func:`write_own` and :func:`write_peer` queue on the current
stream one operation that writes the value once everything queued before
it on that stream has completed; neither needs an SM.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import device

if TYPE_CHECKING:
    from syncopate.runtime.gpu.world import GpuWorld

FLAG_CAPACITY = 1 << 14  # symmetric signal pad words; the upper half holds reduce-scatter arrivals and tokens
GRAPH_FLAG = 2**31 - 1  # what a flag raised inside CUDA-graph capture holds: at least every epoch
CONSTANT_VALUES = (0, 1, GRAPH_FLAG)  # every value a captured launch writes into a pad word
CONSTANTS_AT = FLAG_CAPACITY - len(CONSTANT_VALUES)  # the constant words: the top of every pad


def constant_word(value: int) -> int:
    """The pad word that always holds ``value``."""
    if value not in CONSTANT_VALUES:
        raise ValueError(f"a captured launch writes only {CONSTANT_VALUES} into pad words, not {value}")
    return CONSTANTS_AT + CONSTANT_VALUES.index(value)


def fill_constants(pad: torch.Tensor) -> None:
    """Write the constant words of a new (zeroed) pad."""
    pad[CONSTANTS_AT:].copy_(torch.tensor(CONSTANT_VALUES, dtype=pad.dtype))


def write_own(w: GpuWorld, sync: SyncState, index: int, value: int) -> None:
    """This rank's pad word ``index`` becomes ``value``, on the current stream."""
    if torch.cuda.is_current_stream_capturing() and w.world > 1:
        source = w.peer_view(sync.flags, (w.rank + 1) % w.world, "signal pad")
        device.put_word(sync.flags, index, source, constant_word(value))
    else:
        device.write_value(sync.flags, index, value)


def write_peer(w: GpuWorld, sync: SyncState, peer: int, index: int, value: int) -> None:
    """``peer``'s pad word ``index`` becomes ``value``, on the current stream."""
    target = w.peer_view(sync.flags, peer, "signal pad")
    if torch.cuda.is_current_stream_capturing():
        device.put_word(target, index, sync.flags, constant_word(value))
    else:
        device.write_value(target, index, value)
