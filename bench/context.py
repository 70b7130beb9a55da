"""The benchmark's view of the ranks: one object for GPU and CPU runs.

On GPUs (under torchrun) it wraps syncopate's :class:`GpuWorld` (NCCL
process group, symmetric memory, the fused kernels' launch context); with
``--cpu`` it is a single gloo rank whose tensors live on the CPU. Variants
and the runner use only this interface: rank, world, device, group,
``barrier``, ``sync``, ``gather_floats``, ``gather_objects``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.distributed as dist


class BenchSetupError(Exception):
    """The benchmark cannot start (not under torchrun, no GPU, ...)."""


@dataclass
class BenchWorld:
    """Rank, world size, device, process group and per-run caches."""

    rank: int
    world: int
    device: torch.device
    group: Any
    dtype: torch.dtype
    gpu: Any = None  # syncopate.runtime.gpu.GpuWorld on GPUs, None with --cpu
    cache: dict[Any, Any] = field(default_factory=dict)  # shared buffers, e.g. the symmetric gathered A

    @property
    def cpu(self) -> bool:
        return self.gpu is None

    @property
    def default_lanes(self) -> int:
        """The runtime's default ce lanes (1 with --cpu, where nothing is copied)."""
        return 1 if self.gpu is None else int(self.gpu.ce_lanes)

    @property
    def group_name(self) -> str:
        return str(self.group.group_name)

    @property
    def device_name(self) -> str:
        if self.cpu:
            return "cpu"
        return torch.cuda.get_device_name(self.device)

    @property
    def dtype_name(self) -> str:
        """The dtype the tune caches key on (bench/autotune.py, ``tune_dtype``)."""
        from syncopate.bench.autotune import tune_dtype

        return tune_dtype(str(self.dtype).replace("torch.", ""), self.device_name)

    @classmethod
    def from_torchrun(cls, spin_limit: int = 0, sms: int | None = None,
                      dtype: torch.dtype = torch.bfloat16) -> BenchWorld:
        """One rank per GPU: NCCL process group and symmetric memory via GpuWorld.

        ``spin_limit`` > 0 is GpuWorld's debug mode (bounded spins: a fused
        launch that would hang raises instead, and its row says n/a).
        ``sms``: communication programs of the sm backend (default GpuWorld's).
        """
        if "RANK" not in os.environ:
            raise BenchSetupError("GPU runs need one process per GPU: launch with "
                                  "torchrun --nproc-per-node=W -m syncopate.tools.overlap_bench ... (or use --cpu)")
        if not torch.cuda.is_available():
            raise BenchSetupError("no CUDA device is visible; use --cpu for the CPU plumbing run")
        from syncopate.runtime.gpu import GpuWorld, GpuWorldError

        try:
            options = {"spin_limit": spin_limit} if spin_limit else {}
            if sms is not None:
                options["comm_programs"] = sms
            gpu = GpuWorld.from_torchrun(**options)
        except (GpuWorldError, TypeError) as err:
            raise BenchSetupError(str(err)) from err
        return cls(gpu.rank, gpu.world, gpu.device, gpu.group, dtype, gpu)

    @classmethod
    def cpu_single(cls) -> BenchWorld:
        """A gloo world of one rank in this process (``--cpu``)."""
        if not dist.is_initialized():
            dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        return cls(dist.get_rank(), dist.get_world_size(), torch.device("cpu"), dist.group.WORLD, torch.float32)

    @classmethod
    def cpu_ranks(cls) -> BenchWorld:
        """``--cpu``: the gloo group of torchrun's ranks (RANK, WORLD_SIZE, MASTER_ADDR/PORT
        in the environment), else :meth:`cpu_single`."""
        if "RANK" not in os.environ:
            return cls.cpu_single()
        if not dist.is_initialized():
            dist.init_process_group("gloo")
        return cls(dist.get_rank(), dist.get_world_size(), torch.device("cpu"), dist.group.WORLD, torch.float32)

    def shared_symmetric(self, key: tuple, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        """The symmetric buffer cached under ``key`` (allocated on first use,
        collectively): buffers peers read, shared by the fused rows of a shape."""
        if key not in self.cache:
            self.cache[key] = self.gpu.symmetric(torch.empty(shape, dtype=dtype, device=self.device))
        return self.cache[key]

    def sync(self) -> None:
        """Wait for this rank's device work."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def barrier(self) -> None:
        """Every rank's device work so far is done and every rank is here."""
        self.sync()
        if self.gpu is not None:
            self.gpu.barrier()
        else:
            dist.barrier(group=self.group)
        self.sync()

    def gather_floats(self, values: Sequence[float]) -> list[list[float]]:
        """``values`` (same length on every rank) of every rank, by rank."""
        mine = torch.tensor([float(v) for v in values], dtype=torch.float64, device=self.device)
        parts = [torch.empty_like(mine) for _ in range(self.world)]
        dist.all_gather(parts, mine, group=self.group)
        return [[float(x) for x in p.tolist()] for p in parts]

    def gather_objects(self, obj: Any) -> list[Any]:
        """A picklable object of every rank, by rank."""
        out: list[Any] = [None] * self.world
        dist.all_gather_object(out, obj, group=self.group)
        return out

    def close(self) -> None:
        if dist.is_initialized():
            dist.destroy_process_group()
