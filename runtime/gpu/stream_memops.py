"""Stream waits on a device word through the CUDA driver
(``cuStreamWaitValue32``, from the ``cuda-python`` bindings).

A token wait must hold a stream, not an SM: a one-program wait kernel
(runtime/gpu/stream_wait.py) needs a free SM, so a fused kernel whose tiles
fill every SM while they spin on the copies behind that wait never lets it
run (``rank.ready_before_kernel`` orders the kernel after such waits
instead, which costs the overlap). A driver wait runs in the stream's front
end, costs one driver call to issue, and is captured into a CUDA graph as
one memory-operation node.

Assumes: the target is an int32 word on the current device, written by
stream memory operations or kernels of this or a peer GPU (the writers
order their earlier writes before the word: a stream write carries a
memory barrier by default). Guarantees: :func:`wait_at_least` returns once
the wait is queued; the stream's later work runs only once the word, read
as an int32 difference from ``value``, is at least ``value``
(``CU_STREAM_WAIT_VALUE_GEQ``); :func:`batch` queues several waits and
writes as one batch. Without the bindings, or with
``SYNCOPATE_MEMOP_WAITS=0``, :func:`available` is False and callers keep
the wait kernel.
"""

from __future__ import annotations

import functools
import os

import torch

ENV = "SYNCOPATE_MEMOP_WAITS"  # "0": token waits run the wait kernel (the spin-limited debug mode always does)


@functools.cache
def driver_bindings():
    """The ``cuda-python`` driver module, or None where it is not installed."""
    try:
        from cuda.bindings import driver
    except ImportError:
        return None
    return driver


def available() -> bool:
    """Whether token waits can be driver stream waits here."""
    return os.environ.get(ENV, "1") != "0" and driver_bindings() is not None


def batch(ops: tuple[tuple[str, int, int], ...]) -> None:
    """``ops``: ``(kind, address, value)`` with kind ``"write"`` (the int32
    word at ``address`` becomes ``value``) or ``"wait"`` (the stream holds
    until the word, read as above, is at least ``value``), queued in order on
    the current stream as one ``cuStreamBatchMemOp``, which runs them in
    order: one driver call, one CUDA-graph node."""
    if len(ops) == 1 and ops[0][0] == "wait":
        _wait(ops[0][1], ops[0][2], f"address {ops[0][1]:#x}")
        return
    driver = driver_bindings()
    stream = torch.cuda.current_stream().cuda_stream
    params = _batch_params(ops)
    (err,) = driver.cuStreamBatchMemOp(driver.CUstream(stream), len(params), params, 0)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuStreamBatchMemOp of {len(ops)} token operations failed: {err}")


@functools.lru_cache(maxsize=4096)
def _batch_params(ops: tuple[tuple[str, int, int], ...]) -> list:
    """The driver's parameters for ``ops``, built once per distinct batch: a
    launch issues the same batches each time, and building them from Python
    costs more than the call."""
    driver = driver_bindings()
    geq = int(driver.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ)
    params = []
    for kind, address, value in ops:
        op = driver.CUstreamBatchMemOpParams()
        if kind == "wait":
            op.waitValue.operation = driver.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WAIT_VALUE_32
            op.waitValue.address = driver.CUdeviceptr(address)
            op.waitValue.value = value
            op.waitValue.flags = geq
        else:
            op.writeValue.operation = driver.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WRITE_VALUE_32
            op.writeValue.address = driver.CUdeviceptr(address)
            op.writeValue.value = value
            op.writeValue.flags = 0
        params.append(op)
    return params


def wait_at_least(words: torch.Tensor, index: int, value: int) -> None:
    """Hold the current stream until ``words[index] >= value`` (int32 words)."""
    _wait(words.data_ptr() + index * words.element_size(), value, f"pad word {index}")


def _wait(address: int, value: int, what: str) -> None:
    driver = driver_bindings()
    stream = torch.cuda.current_stream().cuda_stream
    (err,) = driver.cuStreamWaitValue32(driver.CUstream(stream), driver.CUdeviceptr(address), value,
                                        int(driver.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ))
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuStreamWaitValue32 on {what} failed: {err}")
