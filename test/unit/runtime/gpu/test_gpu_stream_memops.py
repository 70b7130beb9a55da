"""Driver stream waits (runtime/gpu/stream_memops.py) against a recorded
driver: the word's address, the target, the comparison and the stream the
wait is queued on, and when token waits use them (no GPU)."""

from __future__ import annotations

import enum
import types

import pytest
from recorded_driver import Result
import torch

from syncopate.runtime.abi import SyncState
from syncopate.runtime.gpu import device, stream_memops


class WaitFlags(enum.IntEnum):
    CU_STREAM_WAIT_VALUE_GEQ = 0
    CU_STREAM_WAIT_VALUE_EQ = 1


def _driver(calls: list, result: Result = Result.CUDA_SUCCESS):
    def wait(stream, address, value, flags):
        calls.append((stream, address, value, flags))
        return (result,)

    def batch(stream, count, operations, flags):
        ops = []
        for op in operations:
            part = op.waitValue if hasattr(op.waitValue, "operation") else op.writeValue
            ops.append((part.operation, part.address, part.value, part.flags))
        calls.append(("batch", stream, count, ops, flags))
        return (result,)

    def params():
        return types.SimpleNamespace(waitValue=types.SimpleNamespace(), writeValue=types.SimpleNamespace())

    kinds = types.SimpleNamespace(CU_STREAM_MEM_OP_WAIT_VALUE_32="wait32", CU_STREAM_MEM_OP_WRITE_VALUE_32="write32")
    return types.SimpleNamespace(cuStreamWaitValue32=wait, cuStreamBatchMemOp=batch, CUstreamBatchMemOpParams=params,
                                 CUstreamBatchMemOpType=kinds,
                                 CUstream=lambda s: ("stream", s), CUdeviceptr=lambda a: ("ptr", a), CUresult=Result,
                                 CUstreamWaitValue_flags=WaitFlags)


@pytest.fixture
def recorded(monkeypatch):
    stream_memops._batch_params.cache_clear()  # built for another (fake) driver
    calls: list = []
    monkeypatch.setattr(stream_memops, "driver_bindings", lambda: _driver(calls))
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: types.SimpleNamespace(cuda_stream=77))
    return calls


def test_a_wait_holds_the_current_stream_on_the_word_until_it_reaches_the_value(recorded):
    words = torch.zeros(16, dtype=torch.int32)
    stream_memops.wait_at_least(words, 5, 1)
    assert recorded == [(("stream", 77), ("ptr", words.data_ptr() + 5 * 4), 1, WaitFlags.CU_STREAM_WAIT_VALUE_GEQ)]


def test_a_batch_holds_each_write_and_wait_in_order(recorded):
    """One driver call (one graph node) for every operation, in order;
    waits compare with GEQ; a lone wait is a plain wait."""
    words = torch.zeros(16, dtype=torch.int32)
    device.memory_ops((("write", words, 9, 1), ("wait", words, 4, 1), ("write", words, 12, 0)))
    geq = WaitFlags.CU_STREAM_WAIT_VALUE_GEQ
    at = [words.data_ptr() + i * 4 for i in (9, 4, 12)]
    assert recorded == [("batch", ("stream", 77), 3, [("write32", ("ptr", at[0]), 1, 0), ("wait32", ("ptr", at[1]), 1, geq),
                                                      ("write32", ("ptr", at[2]), 0, 0)], 0)]
    recorded.clear()
    device.memory_ops((("wait", words, 3, 2),))
    assert recorded == [(("stream", 77), ("ptr", words.data_ptr() + 12), 2, geq)]


def test_a_failed_batch_says_so(monkeypatch):
    stream_memops._batch_params.cache_clear()
    monkeypatch.setattr(stream_memops, "driver_bindings", lambda: _driver([], Result.CUDA_ERROR_INVALID_VALUE))
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: types.SimpleNamespace(cuda_stream=1))
    with pytest.raises(RuntimeError, match="cuStreamBatchMemOp of 2 token operations failed"):
        device.memory_ops((("wait", torch.zeros(4, dtype=torch.int32), 1, 1),
                           ("write", torch.zeros(4, dtype=torch.int32), 2, 0)))
    stream_memops._batch_params.cache_clear()


def test_a_failed_wait_names_the_word(monkeypatch):
    monkeypatch.setattr(stream_memops, "driver_bindings", lambda: _driver([], Result.CUDA_ERROR_INVALID_VALUE))
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: types.SimpleNamespace(cuda_stream=1))
    with pytest.raises(RuntimeError, match="pad word 3"):
        stream_memops.wait_at_least(torch.zeros(4, dtype=torch.int32), 3, 1)


def test_waits_are_off_without_the_bindings_or_when_switched_off(monkeypatch, recorded):
    assert stream_memops.available()
    monkeypatch.setenv(stream_memops.ENV, "0")
    assert not stream_memops.available()
    monkeypatch.delenv(stream_memops.ENV)
    monkeypatch.setattr(stream_memops, "driver_bindings", lambda: None)
    assert not stream_memops.available()


@pytest.mark.parametrize("spin_limit", [0, 100])
def test_token_waits_use_the_driver_unless_a_spin_limit_asks_for_a_report(monkeypatch, recorded, spin_limit):
    kernels: list = []
    monkeypatch.setattr(device, "wait_flag", lambda flags, index, *a, **k: kernels.append(index))
    sync = SyncState(torch.zeros(8, dtype=torch.int32), torch.zeros(1, dtype=torch.int32),
                       torch.zeros(4, dtype=torch.int32), spin_limit=spin_limit)
    device.await_token(sync, 6)
    if spin_limit:  # the wait kernel reports a wait that gives up
        assert kernels == [6] and recorded == []
    else:
        assert kernels == [] and [c[2] for c in recorded] == [1]
