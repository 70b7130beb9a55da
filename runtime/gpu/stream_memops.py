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
(``CU_STREAM_WAIT_VALUE_GEQ``); :func:`wait_all_at_least` queues several
such waits as one batch. Without the bindings, or with
``SYNCOPATE_MEMOP_WAITS=0``, :func:`available` is False and callers keep
the wait kernel.
"""

from __future__ import annotations

import functools
import os

import torch

ENV = "SYNCOPATE_MEMOP_WAITS"  # "0": token waits run the wait kernel (the spin-limited debug mode always does)


@functools.cache
def _driver():
    try:
        from cuda.bindings import driver
    except ImportError:
        return None
    return driver


def available() -> bool:
    """Whether token waits can be driver stream waits here."""
    return os.environ.get(ENV, "1") != "0" and _driver() is not None


def wait_all_at_least(words: torch.Tensor, indices: tuple[int, ...], value: int) -> None:
    """Hold the current stream until ``words[i] >= value`` for every ``i`` of
    ``indices`` (int32 words): one wait, or one batch of waits
    (``cuStreamBatchMemOp``, which runs its operations in order), so a CUDA
    graph holds one node for all of them."""
    if len(indices) == 1:
        wait_at_least(words, indices[0], value)
        return
    driver = _driver()
    stream = torch.cuda.current_stream(words.device).cuda_stream
    geq = int(driver.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ)
    operations = []
    for index in indices:
        op = driver.CUstreamBatchMemOpParams()
        op.waitValue.operation = driver.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WAIT_VALUE_32
        op.waitValue.address = driver.CUdeviceptr(words.data_ptr() + index * words.element_size())
        op.waitValue.value = value
        op.waitValue.flags = geq
        operations.append(op)
    (err,) = driver.cuStreamBatchMemOp(driver.CUstream(stream), len(operations), operations, 0)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuStreamBatchMemOp waiting on pad words {list(indices)} failed: {err}")


def wait_at_least(words: torch.Tensor, index: int, value: int) -> None:
    """Hold the current stream until ``words[index] >= value`` (int32 words)."""
    driver = _driver()
    stream = torch.cuda.current_stream(words.device).cuda_stream
    address = words.data_ptr() + index * words.element_size()
    (err,) = driver.cuStreamWaitValue32(driver.CUstream(stream), driver.CUdeviceptr(address), value,
                                        int(driver.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ))
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuStreamWaitValue32 on pad word {index} failed: {err}")
