"""How the GPU World raises the flags tiles spin on (no GPU needed: the
stream write is replaced by a recorder). Eagerly a flag gets the host's
launch count; inside CUDA-graph capture it gets GRAPH_FLAG and is listed
for the clear that follows the launch, so a replay never sees the previous
replay's flag."""

import pytest
import torch

from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import device
from syncopate.runtime.gpu import flags as gpu_flags


@pytest.fixture
def writes(monkeypatch):
    seen = []
    monkeypatch.setattr(device, "write_value", lambda flags, index, value: seen.append((index, value)))
    return seen


def state(host_epoch: int) -> SyncState:
    zeros = torch.zeros(8, dtype=torch.int32)
    return SyncState(zeros, zeros[:1], zeros[1:5], host_epoch=host_epoch)


def test_eager_flags_carry_the_launch_count(writes, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    captured: list[int] = []
    gpu_flags.raise_flag(torch.zeros(8, dtype=torch.int32), 3, state(41), captured)
    assert writes == [(3, 41)] and captured == []


def test_captured_flags_exceed_every_epoch_and_are_listed_for_clearing(writes, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: True)
    captured: list[int] = []
    for index in (0, 5):
        gpu_flags.raise_flag(torch.zeros(8, dtype=torch.int32), index, state(2), captured)
    assert writes == [(0, gpu_flags.GRAPH_FLAG), (5, gpu_flags.GRAPH_FLAG)]
    assert captured == [0, 5]
    assert gpu_flags.GRAPH_FLAG == torch.iinfo(torch.int32).max  # the kernels compare int32 flags


def test_an_eager_launch_after_replays_counts_on_the_device_without_a_sync(monkeypatch):
    """Replays of a captured launch advance the device epoch without the
    host. A later eager launch of the same pad must not wait for the device
    to learn the count (a server's eager prefill beside its captured decode
    would synchronise at every launch): it adds 1 on the device, as a
    captured launch does, and raises its flags to GRAPH_FLAG (cleared after
    the launch), which every epoch's wait accepts."""
    capturing, syncs, written = [False], [], []
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: capturing[0])
    monkeypatch.setattr(device, "set_epoch", lambda epoch, value: epoch.fill_(value))
    monkeypatch.setattr(device, "add_epoch", lambda epoch: epoch.add_(1))
    monkeypatch.setattr(device, "write_value", lambda flags, index, value: written.append((index, value)))
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: syncs.append(device))
    sync = state(0)
    gpu_flags.count_launch(sync, torch.device("cpu"))  # eager
    assert int(sync.epoch) == 1 and not sync.captured
    gpu_flags.raise_flag(sync.flags, 3, sync, raised := [])
    assert written == [(3, 1)] and raised == []  # an eager flag: the host's count
    capturing[0] = True
    gpu_flags.count_launch(sync, torch.device("cpu"))  # the captured launch
    capturing[0] = False
    assert sync.captured and int(sync.epoch) == 2
    sync.epoch.add_(5)  # five replays on the device
    gpu_flags.count_launch(sync, torch.device("cpu"))  # eager again
    assert int(sync.epoch) == 8 and syncs == []
    gpu_flags.raise_flag(sync.flags, 4, sync, raised := [])
    assert written[-1] == (4, gpu_flags.GRAPH_FLAG) and raised == [4]  # cleared after the launch


@pytest.mark.parametrize("by_kernel", [False, True], ids=["stream writes", "fill kernel"])
@pytest.mark.parametrize("capturing, captured_pad, value", [
    (False, False, 41), (True, False, gpu_flags.GRAPH_FLAG), (False, True, gpu_flags.GRAPH_FLAG)],
    ids=["eager", "under capture", "eager on a captured pad"])
def test_a_ce_copys_flags_carry_the_count_or_the_graph_flag(monkeypatch, by_kernel, capturing, captured_pad, value):
    """raise_flags (the flags after one ce copy), as one batch of stream
    writes or one fill kernel: the host's count eagerly; GRAPH_FLAG, listed
    for the clear, under capture and on a pad a graph captured (whose epoch
    the host no longer knows)."""
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: capturing)
    monkeypatch.setattr(device, "memop_waits", lambda: True)
    batches, fills = [], []
    monkeypatch.setattr(device, "memory_ops", lambda ops: batches.append([(k, i, v) for k, _w, i, v in ops]))
    monkeypatch.setattr(device, "fill_words", lambda flags, words, v: fills.append((words.tolist(), v)))
    sync = state(41)
    sync.captured = captured_pad
    raised: list[int] = []
    words = torch.tensor([2, 6]) if by_kernel else None
    gpu_flags.raise_flags(torch.zeros(8, dtype=torch.int32), (2, 6), sync, raised, words)
    if by_kernel:
        assert fills == [([2, 6], value)] and batches == []
    else:
        assert batches == [[("write", 2, value), ("write", 6, value)]] and fills == []
    assert raised == ([] if value == 41 else [2, 6])


def test_the_clear_after_a_captured_launch_takes_one_fill_per_run_of_flags(writes):
    flags = torch.full((12,), 7, dtype=torch.int32)
    gpu_flags.clear_flags(flags, [9, 3, 4, 5, 0, 10])
    assert writes == [(0, 0)]  # a lone flag: one stream write
    assert flags.tolist() == [7, 7, 7, 0, 0, 0, 7, 7, 7, 0, 0, 7]  # runs 3-5 and 9-10: one fill each
    gpu_flags.clear_flags(flags, [])
    assert writes == [(0, 0)]
