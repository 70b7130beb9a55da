"""The collectives syncopate.ops issues on the process group itself
(runtime/gpu/direct_collectives.py) give torch.distributed's results, on two
gloo ranks: contiguous tensors take the direct call, and a complex tensor,
a non-contiguous one, and a group inside a coalescing context fall back to
the torch.distributed function (recorded, so a fallback that stopped
happening, or happened always, fails)."""

from __future__ import annotations

import pytest
import torch
import torch.distributed as dist

from syncopate.runtime.gpu import direct_collectives


def _shard(rank: int, rows: int = 3, cols: int = 5, dtype=torch.float32) -> torch.Tensor:
    return (torch.arange(rows * cols, dtype=torch.float64).reshape(rows, cols) * (rank + 1) + 100 * rank).to(dtype)


def _recording(monkeypatch):
    """Names of the torch.distributed functions the fallbacks called."""
    called: list[str] = []
    for name in ("all_gather_into_tensor", "reduce_scatter_tensor", "all_reduce"):
        real = getattr(dist, name)

        def wrapped(*args, _real=real, _name=name, **kwargs):
            called.append(_name)
            return _real(*args, **kwargs)
        monkeypatch.setattr(dist, name, wrapped)
    return called


def gloo_direct_calls_equal_torch_distributed(rank, world):
    group = dist.group.WORLD
    mp = pytest.MonkeyPatch()
    try:
        called = _recording(mp)
        out = torch.empty(world * 3, 5)
        direct_collectives.all_gather_into(out, _shard(rank), group)
        assert torch.equal(out, torch.cat([_shard(r) for r in range(world)]))
        full = torch.cat([_shard(rank)] * world)
        part = torch.empty(3, 5)
        direct_collectives.reduce_scatter_into(part, full, group)
        assert torch.equal(part, sum(_shard(r) for r in range(world)))
        t = _shard(rank)
        direct_collectives.all_reduce(t, group)
        assert torch.equal(t, sum(_shard(r) for r in range(world)))
        assert called == []  # all three issued on the group
    finally:
        mp.undo()


def gloo_fallbacks_give_the_same_results(rank, world):
    group = dist.group.WORLD
    mp = pytest.MonkeyPatch()
    try:
        called = _recording(mp)
        shard = _shard(rank, dtype=torch.complex64)
        out = torch.empty(world * 3, 5, dtype=torch.complex64)
        direct_collectives.all_gather_into(out, shard, group)
        assert torch.equal(out, torch.cat([_shard(r, dtype=torch.complex64) for r in range(world)]))
        t = _shard(rank, rows=5, cols=3).t()  # not contiguous
        direct_collectives.all_reduce(t, group)
        assert torch.equal(t, sum(_shard(r, rows=5, cols=3) for r in range(world)).t())
        assert called == ["all_gather_into_tensor", "all_reduce"]
    finally:
        mp.undo()


CHECKS = ["gloo_direct_calls_equal_torch_distributed", "gloo_fallbacks_give_the_same_results"]


@pytest.fixture(scope="module")
def results():
    from gloo_ranks import run_checks

    return run_checks("test_direct_collectives", CHECKS)


@pytest.mark.parametrize("check", CHECKS)
def test_on_two_gloo_ranks(results, check):
    for rank, found in enumerate(results):
        assert found[check] is None, f"rank {rank}:\n{found[check]}"


def test_a_coalescing_group_takes_the_torch_distributed_call(monkeypatch):
    """Inside ``dist._coalescing_manager`` a collective is queued, not issued: only torch's function does that."""
    from torch.distributed.distributed_c10d import _world

    group = object()
    monkeypatch.setitem(_world.pg_coalesce_state, group, [])
    called = []
    monkeypatch.setattr(dist, "all_gather_into_tensor", lambda out, shard, group=None: called.append(group))
    direct_collectives.all_gather_into(torch.empty(4), torch.empty(2), group)
    assert called == [group]


class _RecordingGroup:
    """A process group that records the options of each backend call."""

    def __init__(self):
        self.options: dict[str, object] = {}

    def _allgather_base(self, out, shard, opts):
        self.options["all_gather"] = opts

    def _reduce_scatter_base(self, out, full, opts):
        self.options["reduce_scatter"] = opts

    def allreduce(self, tensors, opts):
        self.options["all_reduce"] = opts


def test_the_direct_calls_are_synchronous_ops():
    """torch.distributed's synchronous call passes ``asyncOp=False``, which
    NCCL runs on the caller's stream; the default options are asynchronous
    (NCCL's own stream, events and a watchdog entry per call)."""
    import torch.distributed.distributed_c10d as c10d

    if not hasattr(c10d.AllgatherOptions(), "asyncOp"):
        pytest.fail("this torch's collective options have no asyncOp: the pinned torch versions all have it")
    group = _RecordingGroup()
    direct_collectives.all_gather_into(torch.empty(4), torch.empty(2), group)
    direct_collectives.reduce_scatter_into(torch.empty(2), torch.empty(4), group)
    direct_collectives.all_reduce(torch.empty(4), group)
    assert sorted(group.options) == ["all_gather", "all_reduce", "reduce_scatter"]
    for name, opts in group.options.items():
        assert opts.asyncOp is False, name
    assert group.options["reduce_scatter"].reduceOp == c10d.ReduceOp.SUM
