"""Replay keys and graph bookkeeping of eager launches (runtime/gpu/replay.py),
with the graph capture and replay recorded (no GPU)."""

from __future__ import annotations

import torch

from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import device, replay
from syncopate.runtime.gpu.rank import launch_keys
from syncopate.runtime.fused import LaunchFacts


def _sync() -> SyncState:
    return SyncState(torch.zeros(8, dtype=torch.int32), torch.zeros(1, dtype=torch.int32), torch.zeros(4, dtype=torch.int32))


def _recorded(monkeypatch) -> list:
    log: list = []
    monkeypatch.setattr(device, "capture", lambda issue: (issue(), ("graph", len(log)))[1])
    monkeypatch.setattr(device, "replay", lambda graph: log.append(("replay", graph)))
    return log


def test_the_second_sighting_captures_and_later_ones_replay(monkeypatch):
    log, issued = _recorded(monkeypatch), []
    graphs, sync = replay.LaunchGraphs(), _sync()
    assert not graphs.replay("k", sync, lambda: issued.append(1))  # first: eager
    assert graphs.replay("k", sync, lambda: issued.append(2))  # second: captured, then replayed
    assert graphs.replay("k", sync, lambda: issued.append(3))
    assert issued == [2] and [op[0] for op in log] == ["replay", "replay"]
    assert sync.host_epoch == 2  # each replay counted on the host


def test_a_capture_leaves_the_host_count_and_the_user_capture_mark_alone(monkeypatch):
    _recorded(monkeypatch)
    graphs, sync = replay.LaunchGraphs(), _sync()
    sync.host_epoch = 5

    def issue():  # what a captured launch does to the pad's bookkeeping (runtime/gpu/flags.py)
        sync.host_epoch += 1
        sync.captured = True

    graphs.replay("k", sync, issue)
    graphs.replay("k", sync, issue)
    assert (sync.host_epoch, sync.captured) == (6, False)


def test_graphs_per_launch_are_bounded_least_recently_replayed_first(monkeypatch):
    _recorded(monkeypatch)
    graphs, sync = replay.LaunchGraphs(), _sync()
    keys = [f"k{i}" for i in range(replay.GRAPHS_PER_LAUNCH + 1)]
    for k in keys:
        graphs.replay(k, sync, lambda: None)
        graphs.replay(k, sync, lambda: None)
        graphs.replay(keys[0], sync, lambda: None)  # keep k0 recent
    assert len(graphs.graphs) == replay.GRAPHS_PER_LAUNCH
    assert keys[0] in graphs.graphs and keys[1] not in graphs.graphs


def test_the_replay_key_follows_every_tensor_argument_address_and_layout():
    """A new output buffer, or the same memory with another layout or
    dtype, is another replay key: a graph bakes the kernel's pointers in."""
    facts = LaunchFacts(consumed=("ag",), produced=(), moved=frozenset({"a"}), shaped=frozenset(),
                        fused_reductions=frozenset(), spin_limit=None)
    a, c1, c2 = torch.zeros(4, 4), torch.zeros(4, 4), torch.zeros(4, 4)
    program = object()

    def key(c, n=4):
        _config, launch, others = launch_keys(program, facts, (1,), {"a": a, "c": c, "n": n}, ())
        return launch, others

    assert key(c1)[0] == key(c2)[0]  # the launch tables do not depend on the output
    assert key(c1)[1] != key(c2)[1]
    assert key(c1)[1] != key(c1.t())[1]
    assert key(c1)[1] != key(c1.view(torch.int32))[1]
    assert key(c1) == key(c1)


def test_replay_keys_that_cycle_through_more_addresses_than_graphs_stop_being_captured(monkeypatch):
    """Outputs at more addresses than graphs are kept would capture on
    every launch once each graph is evicted before its key returns: after
    GRAPHS_PER_LAUNCH evictions new keys run uncaptured, and the graphs
    still kept keep replaying."""
    log, captures = _recorded(monkeypatch), []
    graphs, sync = replay.LaunchGraphs(), _sync()
    keys = [f"k{i}" for i in range(3 * replay.GRAPHS_PER_LAUNCH)]
    for _ in range(4):
        for k in keys:
            graphs.replay(k, sync, lambda k=k: captures.append(k))
    assert graphs.evicted == replay.GRAPHS_PER_LAUNCH
    assert len(captures) == 2 * replay.GRAPHS_PER_LAUNCH  # no capture after the evictions
    kept = list(graphs.graphs)
    before = len(log)
    assert graphs.replay(kept[0], sync, lambda: captures.append("again")) and len(log) == before + 1
    assert not graphs.replay("new", sync, lambda: None) and not graphs.replay("new", sync, lambda: None)
