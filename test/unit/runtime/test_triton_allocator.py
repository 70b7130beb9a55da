"""overlap-run --gpu, like every launcher of such kernels (runtime/gpu/scratch.py),
gives Triton an allocator before it runs kernels that
make tensor descriptors on the device (they need scratch memory at launch,
and Triton's default allocator raises), and keeps one the user set.

CPU only: Triton's current allocator is a fresh context variable per test,
and ``triton.set_allocator`` is recorded."""

from __future__ import annotations

import contextvars

import pytest
import torch
import triton
from triton.runtime import _allocation

from syncopate.runtime.gpu import scratch
from syncopate.runtime.harness import check_gpu


@pytest.fixture
def fresh(monkeypatch):
    """Triton with its default allocator, and every set_allocator call recorded."""
    var = contextvars.ContextVar("_allocator", default=_allocation._NULL_ALLOCATOR)
    monkeypatch.setattr(_allocation, "_allocator", var)
    calls = []

    def record(allocator):
        calls.append(allocator)
        var.set(allocator)

    monkeypatch.setattr(triton, "set_allocator", record)
    monkeypatch.setattr(scratch, "_installed_allocator", False)
    return var, calls


def test_installs_torch_allocator_when_none_is_set(fresh, monkeypatch):
    var, calls = fresh
    assert scratch.ensure_triton_allocator()
    assert len(calls) == 1 and var.get() is calls[0]
    monkeypatch.setattr(scratch, "_allocation_device", lambda: torch.device("cpu"))
    buffer = calls[0](384, 128, None)
    assert buffer.dtype == torch.uint8 and buffer.numel() == 384 and buffer.data_ptr()
    assert not scratch.ensure_triton_allocator(), "installed twice"


def test_keeps_an_allocator_the_user_set(fresh):
    var, calls = fresh

    def mine(size, alignment, stream):
        return torch.empty(size, dtype=torch.int8)

    var.set(mine)
    assert not scratch.ensure_triton_allocator()
    assert calls == [] and var.get() is mine


def test_gpu_run_installs_it_before_anything_runs(fresh, monkeypatch):
    var, calls = fresh

    class Stop(Exception):
        pass

    def stop(*args):
        assert calls, "the allocator is installed before the program is checked or launched"
        raise Stop

    monkeypatch.setattr(check_gpu, "check_world", stop)
    with pytest.raises(Stop):
        check_gpu.run_gpu(workload=None, world=type("W", (), {"world": 2})(), program=object())
    assert var.get() is scratch._torch_allocation
