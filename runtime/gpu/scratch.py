"""Triton's global scratch memory for kernels that make tensor descriptors
on the device.

``tl.make_tensor_descriptor`` in a kernel needs scratch memory at each
launch, which Triton asks of the allocator set with
``triton.set_allocator``; its default raises. Every launcher of such a
kernel (``overlap-run --gpu``, the bench, ``syncopate.ops``' persistent
GEMM) calls :func:`ensure_triton_allocator` first. Triton keeps the
allocator in a context variable, so a thread that never set one (the
autograd engine's, say) gets its own on its first launch.
"""

from __future__ import annotations

import torch

_installed_allocator = False  # set once ensure_triton_allocator installed one (for Tritons where it cannot be read back)


def _allocation_device() -> torch.device:
    """The current CUDA device; the CPU under Triton's interpreter, which
    asks for the same scratch memory."""
    return torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else torch.device("cpu")


def _torch_allocation(size: int, alignment: int, stream: int | None) -> torch.Tensor:
    """Triton's scratch memory from torch's caching allocator: a uint8 tensor
    of ``size`` bytes on the current device (torch's blocks are aligned to
    at least 256 bytes, more than the descriptors' 128)."""
    return torch.empty(size, dtype=torch.uint8, device=_allocation_device())


def _user_allocator() -> bool | None:
    """Whether Triton launches use an allocator someone set (not Triton's
    default, which raises); None when this Triton does not let it be read."""
    try:
        from triton.runtime import _allocation
    except ImportError:
        return None
    holder = getattr(_allocation, "_allocator", None)
    null = getattr(_allocation, "NullAllocator", None)
    if not hasattr(holder, "get") or null is None:
        return None
    return not isinstance(holder.get(), null)


def ensure_triton_allocator() -> bool:
    """Give Triton an allocator (torch's caching allocator) when none is set.

    A kernel that makes tensor descriptors on the device
    (``tl.make_tensor_descriptor``) needs global scratch memory at launch,
    which Triton asks of the allocator set with ``triton.set_allocator``;
    its default raises. An allocator the user's workload set (on import,
    say) is kept. Where Triton does not expose the current allocator, the
    module flag :data:`_installed_allocator` keeps this from installing
    twice, and an allocator set before the first call is replaced. Returns
    whether one was installed."""
    global _installed_allocator
    import triton

    user = _user_allocator()
    if user or (user is None and _installed_allocator):
        return False
    triton.set_allocator(_torch_allocation)
    _installed_allocator = True
    return True
