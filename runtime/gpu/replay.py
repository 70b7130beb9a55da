"""Eager launches replayed from CUDA graphs: how a launch key's steady-state
launches cost the host one graph launch instead of a Triton launch plus a
Python-issued stream operation per chunk, token and flag.

Every launch's device work (epoch count, tokens, copies, collectives, flag
writes, the fused kernel, the reduce-scatter steps, the final joins) is
already replayable: it is what a user's CUDA graph captures
(runtime/gpu/flags.py: a captured launch counts its epoch on the device and
clears the flags it raised). So once the same launch, with the same
arguments, has been seen twice, the runtime captures it on a side stream
and from then on replays the graph on the caller's stream.

Assumes: a replay key names everything the captured work reads from the
host, that is the launch key (plans, grid, scalars, moved tensors'
addresses and layouts) plus the address, layout and dtype of every other
tensor argument and the launch options; the graphs live in their
``CachedLaunch``, so freeing a pad or staging buffer drops them with the
tables that point into it.

Guarantees: a replay does exactly the device work of an eager launch of
the same key, in the same stream order relative to the caller's stream; the
host's epoch count advances by one per replay, so an eager launch of the
same pad after replays writes the right epoch without reading the device.
Only the first launch of a replay key (built eagerly, it may allocate and
compile) and its second (captured) do more than one graph launch.

A replay key that differs from a captured one only in the addresses of the
other tensors (a fresh output, a new activation: same shapes, strides,
dtypes and 16-byte alignment, which is what Triton specialises on) does not
capture again: the captured graph's kernel arguments that held the old
addresses are rewritten in place (runtime/gpu/kernel_node_args.py) and the
graph moves to the new key. Only kernels read those tensors: the
communication's copies and flags read the launch tables, which the launch
key fixes. Where the arguments cannot be found or rewritten, keys are
captured as below. Once a
launch key has dropped GRAPHS_PER_LAUNCH graphs for newer replay keys
(more argument addresses cycle than graphs are kept), new replay keys are
no longer captured: a capture per launch would cost more than it saves,
and those launches replay only their communication (GpuRank).
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import device

GRAPHS_PER_LAUNCH = 4  # replay keys (other argument addresses) kept per launch key
SIGHTINGS = 64  # replay keys counted per launch key before the count starts over
CAPTURE_AT = 2  # the sighting on which a replay key is captured (the first builds and compiles)
ENV = "SYNCOPATE_EAGER_GRAPHS"  # "0": every eager launch is issued from Python (debugging)
COMMUNICATION = "communication"  # ENV value: replay only the communication streams' work, never the kernel


def enabled_by_default() -> bool:
    """Whether a new GPU World replays its eager launches (``SYNCOPATE_EAGER_GRAPHS``)."""
    return os.environ.get(ENV, "1") != "0"


def whole_launches_by_default() -> bool:
    """Whether a new GPU World captures whole launches, kernel included
    (``SYNCOPATE_EAGER_GRAPHS`` other than ``communication``); otherwise a
    launch replays its communication graph beside a kernel launched from Python."""
    return os.environ.get(ENV, "1") != COMMUNICATION


@dataclass
class Retargetable:
    """A captured graph whose kernel arguments can follow new addresses of
    the other tensors: the replay key it points at now, and its sites
    (``device.kernel_sites``)."""

    key: tuple
    graph: Any
    sites: list


def layout_key(key: tuple) -> tuple:
    """What a replay key ``(others, options)`` keeps when the other tensors
    move: their shapes, strides, dtypes and 16-byte alignment (Triton
    specialises a kernel on a pointer's alignment), and the options."""
    others, options = key
    return options, tuple((shape, stride, dtype, ptr % 16 == 0) for ptr, shape, stride, dtype in others)


@dataclass
class LaunchGraphs:
    """One launch key's captured launches, by replay key (least recently
    replayed first), and how often each uncaptured replay key was seen."""

    graphs: OrderedDict[tuple, Any] = field(default_factory=OrderedDict)
    seen: dict[tuple, int] = field(default_factory=dict)
    evicted: int = 0  # graphs dropped to make room for another replay key
    # the communication streams' work alone, with the flags it raises: replayed
    # beside a kernel launched from Python when the replay key is new
    communication: tuple[Any, tuple[int, ...]] | None = None
    retargetable: dict[tuple, Retargetable] = field(default_factory=dict)  # layout_key -> its graph
    layouts_seen: dict[tuple, int] = field(default_factory=dict)  # layout_key -> sightings before its capture
    fixed: set[tuple] = field(default_factory=set)  # layouts whose captures cannot follow other addresses

    def replay(self, key: tuple, sync: SyncState, issue: Callable[[], None]) -> bool:
        """Run the launch ``key`` names from its graph, capturing it first if
        this is its CAPTURE_AT-th sighting. False: run it eagerly instead
        (``issue`` is not called)."""
        graph = self.graphs.get(key)
        if graph is None:
            graph = self._retarget(key)
        if graph is None:
            n = self.seen.get(key, 0) + 1
            if n < CAPTURE_AT and not self._layout_seen(key):
                if len(self.seen) >= SIGHTINGS:
                    self.seen.clear()
                self.seen[key] = n
                return False
            if len(self.graphs) >= GRAPHS_PER_LAUNCH and self.evicted >= GRAPHS_PER_LAUNCH:
                # more replay keys cycle than graphs are kept (outputs at many addresses): a capture
                # per launch would cost more than it saves, so new keys stay uncaptured
                self.seen.pop(key, None)
                return False
            self.seen.pop(key, None)
            graph = self._capture(key, sync, issue)
        self.replay_graph(key, graph, sync)
        return True

    def replay_graph(self, key: tuple, graph: Any, sync: SyncState) -> None:
        """Launch ``graph``, the one captured for ``key``, and count its launch."""
        self.graphs.move_to_end(key)
        device.replay(graph)
        sync.host_epoch += 1  # the graph counted this launch on the device

    def _layout_seen(self, key: tuple) -> bool:
        """Whether ``key``'s layout was seen CAPTURE_AT times (this sighting
        included), where its capture could follow other addresses: a fresh
        output on every launch never shows the same replay key twice."""
        if not device.can_retarget():
            return False
        layout = layout_key(key)
        if layout in self.fixed:
            return False
        n = self.layouts_seen.get(layout, 0) + 1
        if len(self.layouts_seen) >= SIGHTINGS:
            self.layouts_seen.clear()
        self.layouts_seen[layout] = n
        return n >= CAPTURE_AT

    def _retarget(self, key: tuple) -> Any | None:
        """The graph of another replay key of the same layout, its kernel
        arguments rewritten for ``key``'s tensors; None where there is none
        or it cannot follow them."""
        kept = self.retargetable.get(layout_key(key))
        if kept is None or not device.retarget(kept.graph, kept.sites, tuple(other[0] for other in key[0])):
            return None
        self.graphs.pop(kept.key, None)
        kept.key = key
        self.graphs[key] = kept.graph
        return kept.graph

    def _capture(self, key: tuple, sync: SyncState, issue: Callable[[], None]) -> Any:
        """Capture ``issue``. A capture counts its launch on the host and
        marks the pad as captured by a user's graph: neither holds here,
        since the capture runs nothing and the replay counts itself."""
        counted, captured = sync.host_epoch, sync.captured
        try:
            graph = device.capture(issue)
        finally:
            sync.host_epoch, sync.captured = counted, captured
        if len(self.graphs) >= GRAPHS_PER_LAUNCH:
            _, dropped = self.graphs.popitem(last=False)
            self.evicted += 1
            self.retargetable = {k: r for k, r in self.retargetable.items() if r.graph is not dropped}
        self.graphs[key] = graph
        layout = layout_key(key)
        if layout not in self.retargetable:
            sites = device.kernel_sites(graph, tuple(other[0] for other in key[0]))
            if sites is None:
                self.fixed.add(layout)
            else:
                self.retargetable[layout] = Retargetable(key, graph, sites)
        return graph
