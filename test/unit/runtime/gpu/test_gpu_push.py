"""The GPU World's push all-reduce tables (runtime/gpu/push.py), on CPU tensors with a stand-in World."""

from dataclasses import dataclass, field

import pytest
import torch

from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import push
from syncopate.runtime.gpu.errors import GpuWorldError


@dataclass
class FakeLaunch:
    grid: tuple
    flag_count: int
    plans: dict


@dataclass
class FakePlan:
    tensors: list


@dataclass
class FakeTensor:
    param: object


@dataclass
class Name:
    data: str


@dataclass
class FakeWorld:
    """Rank ``rank`` of ``world``: every rank's symmetric buffers are CPU tensors, peer views index them."""

    rank: int
    world: int
    push_staging: dict = field(default_factory=dict)
    buffers: dict = field(default_factory=dict)  # own buffer address -> every rank's copy
    allocations: int = 0

    def symmetric(self, source):
        self.allocations += 1
        copies = [torch.zeros_like(source) for _ in range(self.world)]
        self.buffers[copies[self.rank].data_ptr()] = copies
        return copies[self.rank]

    def peer_view(self, buf, peer, what="tensor"):
        return self.buffers[buf.data_ptr()][peer]


def _launch(grid=(1, 3)):
    return FakeLaunch(grid, 5, {"ar": FakePlan([FakeTensor(Name("c_ptr"))])})


def test_rows_point_into_each_peers_slot_for_this_rank_and_raise_its_flag_in_the_peers_pad(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    w = FakeWorld(rank=1, world=3)
    sync = SyncState(w.symmetric(torch.zeros(64, dtype=torch.int32)), torch.zeros(1, dtype=torch.int32),
                     torch.zeros(4, dtype=torch.int32))
    out = torch.zeros(2, 5)
    rows = push.push_rows(w, _launch(), {"c_ptr": out}, sync)("ar", "c_ptr")
    (buf,) = w.push_staging.values()
    assert buf.shape == (2, 3, 16)  # (parity, source, 10 elements bucketed to 16)
    pads = w.buffers[sync.flags.data_ptr()]
    stagings = w.buffers[buf.data_ptr()]
    for q in (0, 2):
        for parity in (0, 1):
            assert out.data_ptr() + 4 * rows[q][parity] == stagings[q][parity, 1].data_ptr()
            assert out.data_ptr() + 4 * rows[q][2 + parity] == stagings[1][parity, q].data_ptr()
        # flag (tile 0, source 1) in q's pad: words after the 5 chunk flags, 3 tiles per source
        assert sync.flags.data_ptr() + 4 * rows[q][4] == pads[q][5 + 1 * 3].data_ptr()
        assert rows[q][5] == 5 + q * 3
    assert rows[1] == [0, 0, 0, 0, 0, -1]
    push.push_rows(w, _launch(), {"c_ptr": torch.zeros(2, 5)}, sync)("ar", "c_ptr")
    assert w.allocations == 2  # the pad and one staging buffer: the same bucket reuses it
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: True)
    with pytest.raises(GpuWorldError, match="cannot be captured"):  # a new bucket allocates: not under capture
        push.push_rows(w, _launch(), {"c_ptr": torch.zeros(4, 5)}, sync)("ar", "c_ptr")


def test_a_pad_too_small_for_the_push_flags_is_refused():
    w = FakeWorld(rank=0, world=8)
    sync = SyncState(w.symmetric(torch.zeros(64, dtype=torch.int32)), torch.zeros(1, dtype=torch.int32),
                     torch.zeros(4, dtype=torch.int32))
    with pytest.raises(GpuWorldError, match="push all-reduce needs"):
        push.push_rows(w, _launch((1, 1100)), {"c_ptr": torch.zeros(1, 4)}, sync)
