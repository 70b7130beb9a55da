"""A one-program kernel that holds a stream until a flag reaches a target.

The copy-engine and NCCL backends of a produced (reduce-scatter) chunk must
start only when the fused kernel's tiles have announced it; CUDA streams
cannot wait on device memory through torch, so the communication stream runs
this kernel first. It spins with the fused kernel's own helper (acquire,
system scope, bounded by ``spin_limit`` with the same report), and reads the
epoch from memory, so CUDA graphs replay it correctly.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from syncopate.lowering.device_helpers import syn_spin


@triton.jit(do_not_specialize=["index", "count", "least", "spin_limit"])  # one binary (GpuWorld.warm_reduction loads it early)
def _stream_wait(flags, index, count, epoch_ptr, least, spin_limit, report):
    syn_spin(flags, index, tl.maximum(tl.load(epoch_ptr) * count, least), spin_limit, report)


def wait_flag(flags: torch.Tensor, index: int, count: int, epoch: torch.Tensor, spin_limit: int,
              report: torch.Tensor, least: int = 0) -> None:
    """On the current stream: wait until ``flags[index] >= max(epoch * count, least)``
    (``count=0, least=1``: a constant target, as a staging token needs)."""
    _stream_wait[(1,)](flags, index, count, epoch, least, spin_limit, report, num_warps=1)
