"""How the GPU World raises the flags tiles spin on (no GPU needed: the
stream write and the word copy are replaced by recorders). Eagerly a flag
gets the host's launch count by a stream write; inside CUDA-graph capture
it gets GRAPH_FLAG, copied from a peer's constant word, and is listed for
the clear that follows the launch, so a replay never sees the previous
replay's flag."""

import types

import pytest
import torch

from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import device, words
from syncopate.runtime.gpu import flags as gpu_flags


@pytest.fixture
def writes(monkeypatch):
    seen = []
    monkeypatch.setattr(device, "write_value", lambda flags, index, value: seen.append((index, value)))
    monkeypatch.setattr(device, "put_word", lambda target, index, source, at: seen.append(
        (index, int(source[at]), "copy", target.data_ptr(), source.data_ptr())))
    return seen


def state(host_epoch: int) -> SyncState:
    pad = torch.zeros(words.FLAG_CAPACITY, dtype=torch.int32)
    return SyncState(pad, torch.zeros(1, dtype=torch.int32), torch.zeros(4, dtype=torch.int32), host_epoch=host_epoch)


def world_of(rank: int, size: int) -> types.SimpleNamespace:
    """A GPU World stand-in whose peers' pads hold their constant words."""
    pads = [torch.zeros(words.FLAG_CAPACITY, dtype=torch.int32) for _ in range(size)]
    for pad in pads:
        words.fill_constants(pad)
    return types.SimpleNamespace(rank=rank, world=size, pads=pads, peer_view=lambda buf, peer, what: pads[peer])


def test_eager_flags_carry_the_launch_count(writes, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    captured: list[int] = []
    gpu_flags.raise_flag(world_of(0, 2), state(41), 3, captured)
    assert writes == [(3, 41)] and captured == []


def test_captured_flags_exceed_every_epoch_and_are_listed_for_clearing(writes, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: True)
    captured: list[int] = []
    w, sync = world_of(1, 3), state(2)
    for index in (0, 5):
        gpu_flags.raise_flag(w, sync, index, captured)
    peer = w.pads[2].data_ptr()  # the next rank's constants: a copy between two GPUs needs no SM
    own = sync.flags.data_ptr()
    assert writes == [(0, gpu_flags.GRAPH_FLAG, "copy", own, peer), (5, gpu_flags.GRAPH_FLAG, "copy", own, peer)]
    assert captured == [0, 5]
    assert gpu_flags.GRAPH_FLAG == torch.iinfo(torch.int32).max  # the kernels compare int32 flags


def test_captured_token_writes_copy_constants_across_gpus(writes, monkeypatch):
    """A peer's word is copied from this rank's constants, an own word from
    a peer's; in a world of one (no peer) an own word is a stream write."""
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: True)
    w, sync = world_of(0, 2), state(1)
    words.fill_constants(sync.flags)
    words.write_peer(w, sync, 1, 100, 1)
    words.write_own(w, sync, 101, 0)
    assert writes == [(100, 1, "copy", w.pads[1].data_ptr(), sync.flags.data_ptr()),
                      (101, 0, "copy", sync.flags.data_ptr(), w.pads[1].data_ptr())]
    writes.clear()
    words.write_own(world_of(0, 1), sync, 7, 1)
    assert writes == [(7, 1)]
    with pytest.raises(ValueError, match="not 5"):
        words.write_peer(w, sync, 1, 100, 5)


def test_an_eager_launch_after_replays_catches_up_with_the_device_epoch(monkeypatch):
    """Replays of a captured launch advance the device epoch without the
    host; the next eager launch of the same pad must raise flags to the
    device's count, or its tiles would wait for an epoch nobody writes."""
    capturing = [False]
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: capturing[0])
    monkeypatch.setattr(device, "set_epoch", lambda epoch, value: epoch.fill_(value))
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: None)
    sync = state(0)
    gpu_flags.count_launch(sync, torch.device("cpu"))  # eager
    assert (sync.host_epoch, int(sync.epoch)) == (1, 1) and not sync.captured
    capturing[0] = True
    gpu_flags.count_launch(sync, torch.device("cpu"))  # the captured launch
    capturing[0] = False
    assert sync.captured
    sync.epoch.add_(5)  # five more replays on the device
    gpu_flags.count_launch(sync, torch.device("cpu"))  # eager again
    assert sync.host_epoch == int(sync.epoch) == 8


def test_the_clear_after_a_captured_launch_takes_one_fill_per_run_of_flags(writes):
    flags = torch.full((12,), 7, dtype=torch.int32)
    gpu_flags.clear_flags(flags, [9, 3, 4, 5, 0, 10])
    assert writes == [(0, 0)]  # a lone flag: one stream write
    assert flags.tolist() == [7, 7, 7, 0, 0, 0, 7, 7, 7, 0, 0, 7]  # runs 3-5 and 9-10: one fill each
    gpu_flags.clear_flags(flags, [])
    assert writes == [(0, 0)]
