"""How the GPU World raises the flags tiles spin on (no GPU needed: the
stream write is replaced by a recorder). Eagerly a flag gets the host's
launch count; inside CUDA-graph capture it gets GRAPH_FLAG and is listed
for the clear that follows the launch, so a replay never sees the previous
replay's flag."""

import pytest
import torch

from syncopate.runtime import gpu_world
from syncopate.runtime.abi import SyncState


@pytest.fixture
def writes(monkeypatch):
    seen = []
    monkeypatch.setattr(gpu_world, "_write_value", lambda flags, index, value: seen.append((index, value)))
    return seen


def state(host_epoch: int) -> SyncState:
    zeros = torch.zeros(8, dtype=torch.int32)
    return SyncState(zeros, zeros[:1], zeros[1:5], host_epoch=host_epoch)


def test_eager_flags_carry_the_launch_count(writes, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    captured: list[int] = []
    gpu_world._raise_flag(torch.zeros(8, dtype=torch.int32), 3, state(41), captured)
    assert writes == [(3, 41)] and captured == []


def test_captured_flags_exceed_every_epoch_and_are_listed_for_clearing(writes, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: True)
    captured: list[int] = []
    for index in (0, 5):
        gpu_world._raise_flag(torch.zeros(8, dtype=torch.int32), index, state(2), captured)
    assert writes == [(0, gpu_world.GRAPH_FLAG), (5, gpu_world.GRAPH_FLAG)]
    assert captured == [0, 5]
    assert gpu_world.GRAPH_FLAG == torch.iinfo(torch.int32).max  # the kernels compare int32 flags
