"""The world a fused launch runs in, from a ``torch.distributed`` group.

One world per process group, made on first use and kept:

* a CUDA device and an NCCL group: a :class:`~syncopate.runtime.gpu.GpuWorld`
  (symmetric memory, the ce/sm/nccl backends);
* anything else (CPU tensors, gloo): an :class:`~syncopate.pytorch.unfused_rank.UnfusedRank`,
  which does the collective with ``torch.distributed`` around the fused
  kernel (the Triton interpreter on CPU).

:func:`empty` gives the buffers the GPU backends read from peers.
"""

from __future__ import annotations

from typing import Any

import torch

_GPU_WORLDS: dict[str, Any] = {}  # group name -> GpuWorld


class SyncopateSetupError(RuntimeError):
    """A setup problem the caller must fix (no process group, wrong device)."""


def resolve_group(group: Any = None) -> Any:
    """``group`` or the default group; a clear error outside a distributed program."""
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        raise SyncopateSetupError(
            "syncopate needs torch.distributed: call torch.distributed.init_process_group first "
            "(torchrun sets up the environment for it)"
        )
    return dist.group.WORLD if group is None else group


def backend_name(group: Any) -> str:
    """The backend of ``group`` as ``torch.distributed.get_backend`` names it
    ("nccl", "gloo", "cpu:gloo,cuda:nccl", ...), except for a group made
    without one: ``init_device_mesh`` and a bare ``init_process_group()``
    leave it "undefined" and let torch set up a backend per device, so the
    name is "nccl" where CUDA tensors run on NCCL."""
    import torch.distributed as dist

    name = str(dist.get_backend(group))
    if name != "undefined" or not torch.cuda.is_available():
        return name
    try:
        cuda = group._get_backend(torch.device("cuda"))
    except RuntimeError:  # no backend for CUDA tensors
        return name
    return "nccl" if "NCCL" in type(cuda).__name__ else name


def uses_gpu_world(group: Any, device: torch.device) -> bool:
    """Whether launches on ``device`` in ``group`` go through the GPU world
    (CUDA tensors and an NCCL-backed group)."""
    return device.type == "cuda" and "nccl" in backend_name(group)


def gpu_world(group: Any) -> Any:
    """The GPU world of ``group`` (one per group and process)."""
    import torch.distributed as dist

    from syncopate.runtime.gpu import GpuWorld, default_ce_lanes

    name = group.group_name
    world = _GPU_WORLDS.get(name)
    if world is None:
        device = torch.device("cuda", torch.cuda.current_device())
        size = dist.get_world_size(group)
        # High priority, as GpuWorld.from_torchrun: a finished tile hands its SM to communication first.
        comm_stream = torch.cuda.Stream(device, priority=torch.cuda.Stream.priority_range()[1])
        world = _GPU_WORLDS[name] = GpuWorld(rank=dist.get_rank(group), world=size, device=device, group=group,
                                             comm_stream=comm_stream, ce_lanes=default_ce_lanes(size))
    return world


def is_symmetric(tensor: torch.Tensor, group: Any) -> bool:
    """Whether ``tensor`` starts a buffer :func:`empty` allocated for ``group``."""
    world = _GPU_WORLDS.get(group.group_name)
    return world is not None and tensor.data_ptr() in world.handles


def empty(*size: int | tuple[int, ...], dtype: torch.dtype | None = None, device: torch.device | str | None = None,
          group: Any = None) -> torch.Tensor:
    """An uninitialized tensor that peers of ``group`` can read: allocate with
    it every tensor a fused kernel gathers (the tensor of an all-gather or
    all-to-all plan).

    On a CUDA device with an NCCL group it is symmetric memory (every rank
    allocates the same shape, so this call is collective: all ranks of
    ``group`` must make it, in the same order). Elsewhere (CPU, gloo) the
    collective runs unfused and an ordinary ``torch.empty`` tensor is returned.
    ``size``, ``dtype`` and ``device`` mean what they mean for ``torch.empty``
    (``device`` defaults to the current CUDA device when CUDA is available).
    """
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)) else size
    dtype = dtype or torch.get_default_dtype()
    if device is None:
        device = torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else torch.device("cpu")
    device = torch.device(device)
    group = resolve_group(group)
    if not uses_gpu_world(group, device):
        return torch.empty(shape, dtype=dtype, device=device)
    return gpu_world(group).symmetric(torch.empty(shape, dtype=dtype, device="meta"))
