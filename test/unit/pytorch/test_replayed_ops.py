"""The replayed unfused path of syncopate.ops (pytorch/replayed_ops.py) on
CPU: the CUDA graph is a stand-in that runs the captured body again at each
replay, writing the same static outputs, as a replayed graph does; the
group is two ranks that hold the same shard, so a gather repeats this
rank's rows and a reduction doubles. The checks: a call runs eagerly on
its first sighting and is captured on its second; a replay returns fresh
tensors with this call's values; the key holds the weights' addresses and
the stream; the graphs are bounded; nothing is captured under an enclosing
capture. The GPU check replayed_back_to_back (pytorch_gpu_checks.py) runs
the real graphs."""

from __future__ import annotations

import types

import pytest
import torch

from syncopate.pytorch import replayed_ops, unfused_ops
from syncopate.runtime.gpu import direct_collectives

WORLD = 2


class FakeGraph:
    def __init__(self, body):
        self.body, self.replays = body, 0

    def replay(self):
        self.replays += 1
        self.body()


class World:
    def __init__(self):
        self.eager: list[str] = []
        self.captures = 0
        self.synchronized = 0
        self.capturing = False
        self.stream = 7


@pytest.fixture
def world(monkeypatch):
    w = World()
    group = types.SimpleNamespace(size=lambda: WORLD)
    monkeypatch.setattr(replayed_ops, "process_group", lambda name: group)
    monkeypatch.setattr(unfused_ops, "process_group", lambda name: group)
    monkeypatch.setattr(torch.distributed, "get_rank", lambda group=None: 0)
    monkeypatch.setattr(replayed_ops, "_stream", lambda: w.stream)
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: w.capturing)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: setattr(w, "synchronized", w.synchronized + 1))

    def gather(out, shard, group):  # NCCL's view: flat memory
        out.view(-1).copy_(torch.cat([shard.reshape(-1)] * WORLD))

    def scatter(out, full, group):
        out.view(-1).copy_(WORLD * full.reshape(-1)[:out.numel()])

    monkeypatch.setattr(direct_collectives, "all_gather_into", gather)
    monkeypatch.setattr(direct_collectives, "reduce_scatter_into", scatter)
    monkeypatch.setattr(direct_collectives, "all_reduce", lambda t, group: t.mul_(WORLD))

    def captured(static_in, body):
        w.captures += 1
        held = body()  # allocates the static outputs, as the capture does
        fresh = {}

        def again():
            for dst, src in zip(held, body()):
                dst.copy_(src)
        fresh["graph"] = FakeGraph(again)
        return replayed_ops.Replay(fresh["graph"], static_in, held)

    monkeypatch.setattr(replayed_ops, "_captured", captured)
    for op in ("all_gather_matmul", "matmul_reduce_scatter", "matmul_all_reduce"):
        real = getattr(unfused_ops, op)

        def eager(*args, _op=op, _real=real):
            w.eager.append(_op)
            return _real(*args)
        monkeypatch.setattr(unfused_ops, op, eager)
    monkeypatch.setattr(replayed_ops, "_GRAPHS", type(replayed_ops._GRAPHS)())
    monkeypatch.setattr(replayed_ops, "_SEEN", {})
    return w


def _ag(A, B, return_A=False):
    return replayed_ops.all_gather_matmul(A, [B], 0, "g", return_A)


def test_the_second_sighting_captures_and_later_calls_replay_with_their_own_values(world):
    B = torch.randn(6, 5)
    outs = []
    for i in range(5):
        A = torch.randn(4, 6)
        gathered, (out,) = _ag(A, B, return_A=True)
        torch.testing.assert_close(out, torch.cat([A, A]) @ B)
        torch.testing.assert_close(gathered, torch.cat([A, A]))
        outs.append((out, torch.cat([A, A]) @ B))
    assert world.eager == ["all_gather_matmul"] and world.captures == 1
    (replay,) = replayed_ops._GRAPHS.values()
    assert replay.graph.replays == 4  # calls 2 to 5: a capture runs nothing, so the capturing call replays too
    for out, want in outs:  # fresh results: a later replay changed none of them
        torch.testing.assert_close(out, want)
        assert out.data_ptr() not in {t.data_ptr() for t in (replay.static_in, *replay.static_out)}


@pytest.mark.parametrize("reduce_op", ["sum", "avg"])
def test_the_reductions_replay_too(world, reduce_op):
    B = torch.randn(6, 5)
    for _ in range(3):
        A = torch.randn(4, 6)
        scale = 1 if reduce_op == "sum" else 1 / WORLD
        torch.testing.assert_close(replayed_ops.matmul_reduce_scatter(A, B, reduce_op, 0, "g"),
                                   WORLD * scale * (A @ B)[:2])
        torch.testing.assert_close(replayed_ops.matmul_all_reduce(A, B, reduce_op, "g"), WORLD * scale * (A @ B))
    assert world.eager == ["matmul_reduce_scatter", "matmul_all_reduce"] and world.captures == 2


def test_leading_dims_are_gathered_as_rows(world):
    B = torch.randn(6, 5)
    for _ in range(3):
        A = torch.randn(1, 4, 6)
        gathered, (out,) = replayed_ops.all_gather_matmul(A, [B], 1, "g", True)
        assert gathered.shape == (1, 8, 6) and out.shape == (1, 8, 5)
        torch.testing.assert_close(out[0], torch.cat([A[0], A[0]]) @ B)


@pytest.mark.parametrize("change", ["weight address", "stream", "shape"])
def test_the_key_holds_the_weights_address_the_stream_and_the_layout(world, change):
    B, A = torch.randn(6, 5), torch.randn(4, 6)
    _ag(A, B)
    _ag(A, B)
    assert world.captures == 1
    if change == "weight address":
        B = B.clone()
    elif change == "stream":
        world.stream = 8
    else:
        A = torch.randn(8, 6)
    _ag(A, B)
    assert world.captures == 1 and world.eager == ["all_gather_matmul"] * 2
    gathered, (out,) = _ag(A, B)
    assert world.captures == 2
    torch.testing.assert_close(out, torch.cat([A, A]) @ B)


def test_the_graphs_are_bounded_and_the_oldest_goes_after_a_synchronisation(world, monkeypatch):
    monkeypatch.setattr(replayed_ops, "LIMIT", 3)
    B = torch.randn(6, 5)
    for rows in (1, 2, 3, 4):
        for _ in range(2):
            _ag(torch.randn(rows, 6), B)
    assert world.captures == 4 and world.synchronized == 1
    assert [k[2][0][0] for k in replayed_ops._GRAPHS] == [2, 3, 4]  # the least recently used (1 row) went


def test_nothing_is_captured_or_replayed_under_an_enclosing_capture(world):
    B, A = torch.randn(6, 5), torch.randn(4, 6)
    world.capturing = True
    for _ in range(3):
        _ag(A, B)
    assert world.captures == 0 and world.eager == ["all_gather_matmul"] * 3 and not replayed_ops._SEEN
    world.capturing = False
    _ag(A, B)
    _ag(A, B)
    assert world.captures == 1
    world.capturing = True
    _ag(A, B)  # a captured call is not replayed inside the caller's graph
    assert world.eager[-1] == "all_gather_matmul" and len(world.eager) == 5


def test_one_off_calls_are_forgotten_rather_than_kept(world, monkeypatch):
    monkeypatch.setattr(replayed_ops, "LIMIT", 2)
    B = torch.randn(6, 5)
    for rows in range(1, 40):
        _ag(torch.randn(rows, 6), B)
    assert len(replayed_ops._SEEN) <= 4 * replayed_ops.LIMIT and world.captures == 0


def test_the_replay_applies_to_cuda_tensors_only():
    assert not replayed_ops.applies(torch.randn(4, 6), [torch.randn(6, 5)], 0, "g")


def test_destroying_a_process_group_drops_the_graphs_first(world, monkeypatch):
    """NCCL's destroy waits for graphs holding its work: they must be gone when torch's destroy runs."""
    import atexit

    import torch.distributed.distributed_c10d as c10d

    seen = []
    monkeypatch.setattr(c10d, "destroy_process_group", lambda group=None: seen.append(len(replayed_ops._GRAPHS)))
    monkeypatch.setattr(torch.distributed, "destroy_process_group", c10d.destroy_process_group)
    at_exit = []
    monkeypatch.setattr(atexit, "register", at_exit.append)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    B, A = torch.randn(6, 5), torch.randn(4, 6)
    _ag(A, B)
    _ag(A, B)
    _ag(torch.randn(2, 6), B)
    _ag(torch.randn(2, 6), B)
    assert len(replayed_ops._GRAPHS) == 2 and at_exit == [replayed_ops.clear]  # wrapped once
    torch.distributed.destroy_process_group()
    assert seen == [0] and world.synchronized == 1 and not replayed_ops._SEEN
