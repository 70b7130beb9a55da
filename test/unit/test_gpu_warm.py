"""What the GPU World loads and maps before a reduce-scatter's first launch
(no GPU needed: the stream wait, the barrier and the peers' buffers are
recorded). On GPUs, loading the stream-wait kernel after the fused kernel's
launch waited for that kernel, and a kernel that reduces in its epilogue
waits for the sends behind that stream wait: it hung (docs/performance.md,
seventh session). So each kernel is loaded once per world, before any
launch needs it, and every peer view the sends use exists beforehand."""

import pytest
import torch

from syncopate.runtime import gpu_world
from syncopate.runtime.abi import SyncState


class Handle:
    def __init__(self, name: str, log: list):
        self.name, self.log = name, log

    def barrier(self, channel: int = 0) -> None:
        self.log.append(("barrier", self.name, channel))

    def get_buffer(self, peer: int, shape, dtype) -> torch.Tensor:
        self.log.append(("map", self.name, peer))
        return torch.zeros(shape, dtype=dtype)


@pytest.fixture
def world(monkeypatch):
    log: list = []
    monkeypatch.setattr(gpu_world, "wait_flag", lambda *a: log.append(("stream wait", a[1], a[2])))
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: log.append(("synchronize",)))
    w = gpu_world.GpuWorld(rank=1, world=3, device=torch.device("cpu"), group=None, comm_stream=None)
    pad = torch.zeros(16, dtype=torch.int32)
    w.handles[pad.data_ptr()] = (Handle("pad", log), tuple(pad.shape))
    sync = SyncState(pad, pad[:1], pad[1:5])
    return w, sync, log


def _staging(w: gpu_world.GpuWorld, log: list) -> torch.Tensor:
    buf = torch.zeros(3, 4, 8)
    w.handles[buf.data_ptr()] = (Handle("staging", log), tuple(buf.shape))
    w.staging[((3, 4, 8), buf.dtype)] = buf
    return buf


def test_the_stream_wait_is_loaded_once_and_the_peers_pads_are_mapped(world):
    w, sync, log = world
    w.warm_reduction(sync)
    assert log == [("stream wait", 0, 0), ("synchronize",), ("map", "pad", 0), ("map", "pad", 2)]
    log.clear()
    w.warm_reduction(sync)
    assert log == []  # loaded, and the views are cached


def test_the_staging_barrier_is_loaded_once_per_world(world):
    w, sync, log = world
    w.warm_reduction(sync)
    staging = _staging(w, log)
    log.clear()
    w.warm_reduction(sync)
    assert log == [("barrier", "staging", 0), ("synchronize",), ("map", "staging", 0), ("map", "staging", 2)]
    log.clear()
    w.warm_reduction(sync)
    w.staging_barrier(staging)  # what a launch's reduce-scatter ends with
    assert log == [("barrier", "staging", 0)] and w.loaded == {"stream wait", "barrier"}


def test_a_launch_that_already_ran_the_barrier_needs_no_second_one(world):
    w, sync, log = world
    staging = _staging(w, log)
    w.staging_barrier(staging)  # a stream-mode reduce-scatter allocated staging after its kernel, then met here
    log.clear()
    w.warm_reduction(sync)
    assert ("barrier", "staging", 0) not in log and ("stream wait", 0, 0) in log
