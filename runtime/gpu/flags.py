"""Flags and epochs: how the GPU World raises the flags tiles spin on, and
how it counts launches, eagerly and under CUDA-graph capture.

A launch configuration's epoch is one int32 on the device that the compute
stream increments before each launch and the kernel reads; a tile waits for
a consumed chunk's flag to reach the epoch. Flags only grow, so nothing is
reset between launches (docs/runtime-protocol.md, "Flags and epochs").
"""

from __future__ import annotations

import torch

from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import device

FLAG_CAPACITY = 1 << 14  # symmetric signal pad words; the upper half holds reduce-scatter arrivals and tokens
GRAPH_FLAG = 2**31 - 1  # what a flag raised inside CUDA-graph capture holds: at least every epoch
LOCAL_FLAG = GRAPH_FLAG  # a local chunk's flag, raised once when its launch tables are built: never waited for


def count_launch(sync: SyncState, dev: torch.device) -> None:
    """One more launch on ``sync``'s pad: the device epoch word (on the
    stream) and the host's count. Eagerly the host knows the new count and
    writes it with a stream memory operation (cheaper to issue than an add
    kernel); a captured launch adds 1 on the device instead, so each replay
    counts itself. Inside capture the pad is marked captured; from then on
    its replays move the epoch without the host, so its eager launches count
    on the device too and raise their flags as a captured launch does
    (:func:`raise_flag`), instead of reading the epoch back: that read would
    synchronise the device at every eager launch of a pad a graph shares (a
    server's eager prefill beside its captured decode)."""
    if torch.cuda.is_current_stream_capturing():
        sync.captured = True
    sync.host_epoch += 1
    if sync.captured:
        device.add_epoch(sync.epoch)
        return
    device.set_epoch(sync.epoch, sync.host_epoch)


def raise_flag(flags: torch.Tensor, index: int, sync: SyncState, captured: list[int]) -> None:
    """Raise a flag tiles spin on with a stream memory operation, which takes
    no SM, so tiles that fill every SM while spinning cannot starve it.
    Eagerly it writes the host's launch count, which equals the epoch the
    kernel reads. A captured write replays a constant, so inside CUDA-graph
    capture (and in an eager launch of a pad a graph captured, whose epoch
    the host no longer knows) it writes GRAPH_FLAG and records ``index`` in
    ``captured``; the launch clears those flags again once the kernel and
    the transfers are done, so every replay waits for its own. Not a 4-byte
    copy from a constant word: a same-device copy runs as a kernel and
    waits for an SM (test/e2e/probes/copy_needs_sm.py), and a graph's copy
    node costs a replay as much host time as a memory operation
    (docs/performance.md, graph-node costs)."""
    capturing, value = _flag_value(sync)
    device.write_value(flags, index, value)
    if capturing:
        captured.append(index)


def raise_flags(flags: torch.Tensor, indices: tuple[int, ...], sync: SyncState, captured: list[int],
                words: torch.Tensor | None = None) -> None:
    """:func:`raise_flag` for each of ``indices`` (the chunks of one ce copy):
    as one batch of stream writes, as token operations go (one graph node
    and one driver call for any number, and the same host work); or, given
    ``words`` (the same indices on the device, where the caller knows an SM
    is free for it), one kernel, which a graph replays at no host cost."""
    capturing, value = _flag_value(sync)
    if words is not None:
        device.fill_words(flags, words, value)
    else:
        device.token_ops(sync, tuple([("write", flags, index, value) for index in indices]))
    if capturing:
        captured.extend(indices)


def _flag_value(sync: SyncState) -> tuple[bool, int]:
    """Whether this launch's flags are cleared after it (raised inside
    capture, or in an eager launch of a pad a graph captured), and the value
    they get: GRAPH_FLAG then, else the host's launch count."""
    capturing = torch.cuda.is_current_stream_capturing() or sync.captured
    return capturing, GRAPH_FLAG if capturing else sync.host_epoch


def clear_flags(flags: torch.Tensor, indices: list[int], words: torch.Tensor | None = None) -> None:
    """Zero the flags a captured launch raised, after its kernel and
    transfers. ``words``: the same indices as a device tensor, made before
    the capture: then one kernel zeroes them all, one graph node whatever
    the number of chunks (each graph node costs every replay host time).
    Without it, one stream write for a lone flag and one fill per run of
    consecutive flags. Either kernel finds the SMs free by then."""
    if words is not None and indices and words.numel() == len(indices):
        device.zero_words(flags, words)
        return
    runs: list[list[int]] = []
    for index in sorted(indices):
        if runs and index == runs[-1][1]:
            runs[-1][1] += 1
        else:
            runs.append([index, index + 1])
    for lo, hi in runs:
        if hi - lo == 1:
            device.write_value(flags, lo, 0)
        else:
            flags[lo:hi].zero_()
