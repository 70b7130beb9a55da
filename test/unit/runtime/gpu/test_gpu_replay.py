"""Replay keys and graph bookkeeping of eager launches (runtime/gpu/replay.py),
with the graph capture and replay recorded (no GPU)."""

from __future__ import annotations

import pytest
import torch

from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import device, replay
from syncopate.runtime.gpu.rank import launch_keys
from syncopate.runtime.fused import LaunchFacts


def _sync() -> SyncState:
    return SyncState(torch.zeros(8, dtype=torch.int32), torch.zeros(1, dtype=torch.int32), torch.zeros(4, dtype=torch.int32))


def _key(name: str, address: int | None = None) -> tuple:
    """A replay key (others, options): one other tensor, at an address of its own per name."""
    address = 4096 * (1 + sum(ord(ch) << (8 * i) for i, ch in enumerate(name))) if address is None else address
    return ((address, torch.Size([4]), (1,), torch.float32),), ()


def _recorded(monkeypatch) -> list:
    log: list = []
    monkeypatch.setattr(device, "capture", lambda issue: (issue(), ("graph", len(log)))[1])
    monkeypatch.setattr(device, "replay", lambda graph: log.append(("replay", graph)))
    return log


def test_the_second_sighting_captures_and_later_ones_replay(monkeypatch):
    log, issued = _recorded(monkeypatch), []
    graphs, sync = replay.LaunchGraphs(), _sync()
    assert not graphs.replay(_key("k"), sync, lambda: issued.append(1))  # first: eager
    assert graphs.replay(_key("k"), sync, lambda: issued.append(2))  # second: captured, then replayed
    assert graphs.replay(_key("k"), sync, lambda: issued.append(3))
    assert issued == [2] and [op[0] for op in log] == ["replay", "replay"]
    assert sync.host_epoch == 2  # each replay counted on the host


def test_a_capture_leaves_the_host_count_and_the_user_capture_mark_alone(monkeypatch):
    _recorded(monkeypatch)
    graphs, sync = replay.LaunchGraphs(), _sync()
    sync.host_epoch = 5

    def issue():  # what a captured launch does to the pad's bookkeeping (runtime/gpu/flags.py)
        sync.host_epoch += 1
        sync.captured = True

    graphs.replay(_key("k"), sync, issue)
    graphs.replay(_key("k"), sync, issue)
    assert (sync.host_epoch, sync.captured) == (6, False)


def test_graphs_per_launch_are_bounded_least_recently_replayed_first(monkeypatch):
    _recorded(monkeypatch)
    graphs, sync = replay.LaunchGraphs(), _sync()
    keys = [_key(f"k{i}") for i in range(replay.GRAPHS_PER_LAUNCH + 1)]
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
    keys = [_key(f"k{i}") for i in range(3 * replay.GRAPHS_PER_LAUNCH)]
    for _ in range(4):
        for k in keys:
            graphs.replay(k, sync, lambda k=k: captures.append(k))
    assert graphs.evicted == replay.GRAPHS_PER_LAUNCH
    assert len(captures) == 2 * replay.GRAPHS_PER_LAUNCH  # no capture after the evictions
    kept = list(graphs.graphs)
    before = len(log)
    assert graphs.replay(kept[0], sync, lambda: captures.append("again")) and len(log) == before + 1
    assert not graphs.replay(_key("new"), sync, lambda: None) and not graphs.replay(_key("new"), sync, lambda: None)


def _retargeting(monkeypatch, log: list, sites=("site",), accept: bool = True) -> None:
    """Graphs whose kernel arguments can be found (``sites``) and rewritten
    (``accept``); each rewrite is logged with the addresses it points to."""
    monkeypatch.setattr(device, "can_retarget", lambda: True)
    monkeypatch.setattr(device, "kernel_sites", lambda graph, addresses: None if sites is None else list(sites))
    monkeypatch.setattr(device, "retarget", lambda graph, s, addresses: (log.append(("retarget", graph, addresses)),
                                                                         accept)[1])


def test_other_tensors_at_new_addresses_rewrite_the_captured_graph_instead_of_capturing(monkeypatch):
    """A fresh output on every launch: one capture, then each launch points
    the same graph at its addresses and replays it; the graph follows the
    key, so the old key is no longer replayed without a rewrite."""
    log, captures = _recorded(monkeypatch), []
    _retargeting(monkeypatch, log)
    graphs, sync = replay.LaunchGraphs(), _sync()
    first = _key("out0")
    assert not graphs.replay(first, sync, lambda: captures.append(first))  # first: eager
    fresh = [_key(f"out{i}") for i in range(1, 3 * replay.GRAPHS_PER_LAUNCH)]
    for key in fresh:  # the layout's second sighting captures; later ones rewrite that graph
        assert graphs.replay(key, sync, lambda key=key: captures.append(key))
    assert captures == [fresh[0]]
    (graph,) = {op[1] for op in log}
    assert [op for op in log if op[0] == "retarget"] == [("retarget", graph, (key[0][0][0],)) for key in fresh[1:]]
    assert list(graphs.graphs) == [fresh[-1]] and graphs.evicted == 0
    before = len(log)
    assert graphs.replay(first, sync, lambda: captures.append("again"))  # back to the first output: rewritten again
    assert log[before:] == [("retarget", graph, (first[0][0][0],)), ("replay", graph)] and captures == [fresh[0]]


@pytest.mark.parametrize("change", ["shape", "stride", "dtype", "alignment", "options"])
def test_another_layout_of_the_other_tensors_is_captured_not_rewritten(monkeypatch, change):
    """Only addresses are rewritten: a kernel is specialised on shapes and
    strides passed as scalars, on dtypes and on a pointer's 16-byte alignment."""
    log, captures = _recorded(monkeypatch), []
    _retargeting(monkeypatch, log)
    graphs, sync = replay.LaunchGraphs(), _sync()
    base = _key("a")
    (address, shape, stride, dtype), = base[0]
    other = {"shape": ((address + 4096, torch.Size([8]), stride, dtype),),
             "stride": ((address + 4096, shape, (2,), dtype),),
             "dtype": ((address + 4096, shape, stride, torch.float16),),
             "alignment": ((address + 4104, shape, stride, dtype),),
             "options": ((address + 4096, shape, stride, dtype),)}[change]
    key = (other, (("num_warps", 8),) if change == "options" else ())
    for k in (base, base):
        graphs.replay(k, sync, lambda k=k: captures.append(k))
    assert not graphs.replay(key, sync, lambda: captures.append(key))  # a first sighting: eager
    assert graphs.replay(key, sync, lambda: captures.append(key))  # the second: a capture of its own
    assert not [op for op in log if op[0] == "retarget"] and captures == [base, key]


@pytest.mark.parametrize("case", ["no sites", "rewrite refused"])
def test_graphs_that_cannot_follow_new_addresses_are_captured_per_key(monkeypatch, case):
    log, captures = _recorded(monkeypatch), []
    _retargeting(monkeypatch, log, sites=None if case == "no sites" else ("site",), accept=False)
    graphs, sync = replay.LaunchGraphs(), _sync()
    for k in (_key("a"), _key("a"), _key("b"), _key("b")):
        graphs.replay(k, sync, lambda k=k: captures.append(k))
    assert captures == [_key("a"), _key("b")]
    assert set(graphs.graphs) == {_key("a"), _key("b")}


def test_an_evicted_graph_is_no_longer_rewritten(monkeypatch):
    log, captures = _recorded(monkeypatch), []
    _retargeting(monkeypatch, log)
    graphs, sync = replay.LaunchGraphs(), _sync()
    graphs.replay(_key("a"), sync, lambda: captures.append("a"))
    graphs.replay(_key("a"), sync, lambda: captures.append("a"))
    monkeypatch.setattr(device, "kernel_sites", lambda graph, addresses: None)  # later graphs cannot be rewritten
    shapes = [((4096 * (i + 2), torch.Size([i + 5]), (1,), torch.float32),) for i in range(replay.GRAPHS_PER_LAUNCH)]
    for others in shapes:  # other layouts: captured, evicting the first graph
        graphs.replay((others, ()), sync, lambda: None)
        graphs.replay((others, ()), sync, lambda: None)
    assert _key("a") not in graphs.graphs and not graphs.retargetable
    graphs.replay(_key("c"), sync, lambda: captures.append("c"))  # the layout was seen before: captured anew
    assert captures == ["a", "c"] and not [op for op in log if op[0] == "retarget"]
