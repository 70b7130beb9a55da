"""Launching the benchmark's Triton GEMMs (``kernels/gemm_bf16*.py``).

The persistent kernel launches min(tiles, SMs) programs (4 in the
interpreter) and gets that count as its ``PROGRAMS`` constexpr, and its
L2 group height as ``GROUP_M``; ``persistent-flat`` is the same kernel
with ``FLATTEN`` (one software pipeline over the tile and K loops).

:func:`launch_gemm` takes the kernel as an argument so the same launch code
runs the original ``@triton.jit`` kernel (local Triton baseline) and a
syncopate :class:`FusedKernel` (which is called exactly like it).
Triton is imported lazily: ``--cpu`` must set TRITON_INTERPRET first.
"""

from __future__ import annotations

import importlib
from typing import Any

import torch

from syncopate.bench.configs import PERSISTENT_KERNELS, GemmConfig
from syncopate.kernels import b_layout, source_path
from syncopate.ir.contract import AbiKey

_KERNELS = {"ptr": ("gemm_bf16", "gemm_kernel"), "tma": ("gemm_bf16_tma", "gemm_tma_kernel"),
            "persistent": ("gemm_bf16_persistent", "gemm_persistent_kernel"),
            "persistent-flat": ("gemm_bf16_persistent", "gemm_persistent_kernel")}
DESCRIPTOR_KERNELS = ("tma", *PERSISTENT_KERNELS)  # kernels that build device-side tensor descriptors
INTERPRETER_PROGRAMS = 4  # the persistent kernel's program count without a GPU
PERSISTENT_GROUP_M = 8  # the persistent kernel's L2 group height in tiles (Triton's GROUP_M)


def kernel_name(config: GemmConfig) -> str:
    return _KERNELS[config.kernel][1]


def kernel_path(config: GemmConfig) -> str:
    """The kernel's source file (what ``compile_fused`` reads)."""
    return source_path(_KERNELS[config.kernel][0] + ".py")


def gemm_kernel(config: GemmConfig) -> Any:
    """The original ``@triton.jit`` GEMM of ``config``."""
    module = importlib.import_module(f"syncopate.kernels.{_KERNELS[config.kernel][0]}")
    if config.kernel in DESCRIPTOR_KERNELS:
        scratch_allocator()
    return getattr(module, kernel_name(config))


def scratch_allocator() -> None:
    """Device-side tensor descriptors need global scratch memory from the host."""
    from syncopate.runtime.gpu.scratch import ensure_triton_allocator

    ensure_triton_allocator()


def grid(m: int, n: int, config: GemmConfig, device: torch.device | None = None, reserved: int = 0) -> tuple[int, ...]:
    """One program per tile, or for the persistent kernel min(tiles, SMs -
    ``reserved``) programs (``reserved``: SMs other programs of the same
    launch take, e.g. the sm backend's communication programs)."""
    tiles = (-(-m // config.block_m), -(-n // config.block_n))
    if config.kernel not in PERSISTENT_KERNELS:
        return tiles
    return (persistent_programs(tiles[0] * tiles[1], device, reserved),)


def persistent_programs(tiles: int, device: torch.device | None, reserved: int = 0) -> int:
    """A persistent kernel's program count: one per SM left after
    ``reserved``, never more than ``tiles``, at least one."""
    return max(1, min(tiles, programs(device) - reserved))


def persistent_constexprs(programs: int) -> dict[str, int]:
    """The tile-loop constexprs every persistent bench kernel takes (dense and grouped)."""
    return {"PROGRAMS": programs, "GROUP_M": PERSISTENT_GROUP_M}


def comm_programs(program: Any, gpu: Any) -> int:
    """The SMs the sm backend's communication programs take in a launch of the
    FusedProgram ``program`` on the GPU World ``gpu`` (0 without them): a
    persistent kernel leaves them free, or its last programs would start
    only once the copies are done."""
    return getattr(gpu, "comm_programs", 0) if AbiKey.COMM_PROGRAMS in program.abi else 0


def programs(device: torch.device | None) -> int:
    """A persistent kernel's program count: the GPU's SMs (4 in the interpreter)."""
    if device is not None and device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return INTERPRETER_PROGRAMS


def launch_gemm(kernel: Any, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, config: GemmConfig,
                reserved: int = 0) -> None:
    """``c = a @ b`` with ``kernel`` (the original or a fused one), on the
    current stream; a persistent kernel leaves ``reserved`` SMs to other
    programs of its launch."""
    m, k = a.shape
    k2, n = b.shape
    if k != k2 or tuple(c.shape) != (m, n):
        raise ValueError(f"launch_gemm: shapes a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)} do not match")
    b_nk = config.kernel in PERSISTENT_KERNELS and b_layout(b) is True
    if config.kernel in DESCRIPTOR_KERNELS:
        # their descriptors take the last stride as 1 and never read the argument: any other layout reads wrong
        # data (the persistent kernel also reads B as nn.Linear keeps a weight, B_NK)
        for name, t in (("a", a), ("b", b), ("c", c)):
            if t.stride(1) != 1 and not (name == "b" and b_nk):
                raise ValueError(f"launch_gemm: the {config.kernel} kernel reads {name} through a tensor descriptor, "
                                 f"which needs rows of consecutive elements; {name} has strides {tuple(t.stride())} "
                                 f"(an nn.Linear weight's .t(), say): pass {name}.contiguous() or use the ptr kernel")
    g = grid(m, n, config, a.device, reserved)
    kernel[g](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
              **kernel_constexprs(config, g[0]), **({"B_NK": True} if b_nk else {}), **config.launch_options())


def kernel_constexprs(config: GemmConfig, programs: int) -> dict[str, int]:
    """Every constexpr argument of ``config``'s kernel launched on ``programs``
    programs: the block sizes, plus PROGRAMS, GROUP_M and FLATTEN for the persistent kernel."""
    extra = {}
    if config.kernel in PERSISTENT_KERNELS:
        extra = {**persistent_constexprs(programs), "FLATTEN": config.kernel == "persistent-flat"}
    return {**config.constexprs(), **extra}
