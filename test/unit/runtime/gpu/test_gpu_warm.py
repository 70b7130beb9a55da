"""What the GPU World loads, allocates, maps and frees around a
reduce-scatter's first launch (no GPU needed: stream waits, stream writes,
peer mappings and barriers are recorded). Loading the stream-wait kernel
after the fused kernel's launch would wait for that kernel, and a kernel
that reduces in its epilogue waits for the sends behind that stream wait,
so it would hang (docs/runtime-protocol.md, "What can hang"). So the kernel
is loaded once per world, before any launch needs it, and every peer view
the sends use exists beforehand. Staging buffers are shared by size bucket
and freed collectively past their bound (runtime/gpu/memory.py)."""

import pytest
import torch
from test_gpu_reduce_order import chunks as rs_chunks

from syncopate.runtime import gpu as gpu_world
from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import device
from syncopate.runtime.staging import StagingLayout, owner_regions


class Handle:
    def __init__(self, name: str, log: list):
        self.name, self.log = name, log

    def get_buffer(self, peer: int, shape, dtype) -> torch.Tensor:
        self.log.append(("map", self.name, peer))
        return torch.zeros(shape, dtype=dtype)


@pytest.fixture
def world(monkeypatch):
    log: list = []
    monkeypatch.setattr(device, "wait_flag", lambda *a, **k: log.append(("stream wait", a[1], a[2])))
    monkeypatch.setattr(device, "write_value", lambda flags, index, value: log.append(("write", index, value)))
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: log.append(("synchronize",)))
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    w = gpu_world.GpuWorld(rank=1, world=3, device=torch.device("cpu"), group=None, comm_stream=None)

    def symmetric(source: torch.Tensor) -> torch.Tensor:
        log.append(("allocate", tuple(source.shape)))
        w.handles[source.data_ptr()] = (Handle(f"staging{len(w.staging)}", log), tuple(source.shape))
        return source

    monkeypatch.setattr(w, "symmetric", symmetric)
    monkeypatch.setattr(w, "barrier", lambda: log.append(("barrier",)))
    return w, _pad(w, "pad", log), log


def _pad(w: gpu_world.GpuWorld, name: str, log: list) -> SyncState:
    pad = torch.zeros(1 << 14, dtype=torch.int32)
    w.handles[pad.data_ptr()] = (Handle(name, log), tuple(pad.shape))
    return SyncState(pad, torch.zeros(1, dtype=torch.int32), torch.zeros(4, dtype=torch.int32))


def _layout(per_rank: int = 1) -> StagingLayout:
    return StagingLayout(owner_regions(rs_chunks("direct", world=3, per_rank=per_rank)), 3, 1 << 13, 1 << 14)


def test_the_stream_wait_is_loaded_once_and_the_peers_pads_are_mapped(world):
    w, sync, log = world
    w.warm_reduction(sync)
    assert log == [("stream wait", 0, 0), ("synchronize",), ("map", "pad", 0), ("map", "pad", 2)]
    log.clear()
    w.warm_reduction(sync)
    assert log == []  # loaded, and the views are cached


def test_staging_is_allocated_once_per_size_bucket_and_shared_by_configurations(world):
    w, sync, log = world
    layout, out = _layout(), torch.zeros(48, 8)
    buf = w.staging_for(sync, layout, out)
    assert tuple(buf.shape) == (3, 16, 8)
    assert log == [("allocate", (3, 16, 8))]
    log.clear()
    assert w.staging_for(sync, layout, out) is buf and log == []  # no second allocation
    other = _pad(w, "pad2", log)  # another configuration (its own pad) of the same bucket shares it
    assert w.staging_for(other, layout, out) is buf and log == []
    wider = w.staging_for(other, _layout(per_rank=2), torch.zeros(96, 8))  # 32-row slots: another bucket
    assert tuple(wider.shape) == (3, 32, 8) and log == [("allocate", (3, 32, 8))]


def test_outputs_of_another_dtype_get_staging_of_their_own_dtype(world):
    """Partials are staged in the output's dtype: a half-precision output
    must not share an fp32 buffer of the same bucket (nor the reverse)."""
    w, sync, log = world
    layout = _layout()
    wide = w.staging_for(sync, layout, torch.zeros(48, 8))
    half = w.staging_for(_pad(w, "pad2", log), layout, torch.zeros(48, 8, dtype=torch.float16))
    assert wide.dtype == torch.float32 and half.dtype == torch.float16


def test_warm_up_maps_this_configurations_staging_only(world):
    w, sync, log = world
    w.staging_for(_pad(w, "pad2", log), _layout(per_rank=2), torch.zeros(96, 8))  # staging0: another's bucket
    w.staging_for(sync, _layout(), torch.zeros(48, 8))  # staging1: this one's
    log.clear()
    w.warm_reduction(sync)
    maps = [e for e in log if e[0] == "map"]
    assert maps == [("map", "pad", 0), ("map", "staging1", 0), ("map", "pad", 2), ("map", "staging1", 2)]


def test_a_first_launch_inside_cuda_graph_capture_is_refused(world, monkeypatch):
    w, sync, log = world
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: True)
    with pytest.raises(gpu_world.GpuWorldError, match="launch it once eagerly before capturing"):
        w.staging_for(sync, _layout(), torch.zeros(48, 8))
    assert log == []


def test_staging_past_its_bound_frees_the_least_recently_used_buffer_collectively(world):
    w, sync, log = world
    w.staging_bytes = 3 * 32 * 8 * 4  # one (3, 32, 8) fp32 buffer, or a (3, 16, 8) one, but not both
    small = w.staging_for(sync, _layout(), torch.zeros(48, 8))
    log.clear()
    big = w.staging_for(sync, _layout(per_rank=2), torch.zeros(96, 8))
    # every rank's device and host are past their last use before the free; then the new buffer
    assert log == [("synchronize",), ("barrier",), ("allocate", (3, 32, 8))]
    assert list(w.staging.values()) == [big] and w.staging_held() == 3 * 32 * 8 * 4
    assert small.data_ptr() not in w.handles


def test_staging_a_captured_configuration_uses_is_kept_past_the_bound_with_one_warning(world):
    w, sync, log = world
    w.staging_bytes = 3 * 32 * 8 * 4
    kept = w.staging_for(sync, _layout(), torch.zeros(48, 8))
    sync.captured = True
    w.pads[("captured",)] = sync
    with pytest.warns(RuntimeWarning, match="over the bound"):
        w.staging_for(_pad(w, "pad2", log), _layout(per_rank=2), torch.zeros(96, 8))
    assert w.staging_of(sync) == [kept]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w.staging_for(_pad(w, "pad3", log), _layout(per_rank=2), torch.zeros(96, 8))  # warned already, and shared
