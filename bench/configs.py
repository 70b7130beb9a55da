"""Block sizes and launch options of the benchmark's Triton GEMM.

One default for GPUs (the Triton matmul tutorial's Hopper configuration),
one for the CPU interpreter, and :data:`PER_SHAPE`, the hook for per-shape
tuning: add ``(workload, shape name): GemmConfig(...)`` and both the local
Triton baseline and every fused variant of that shape use it (they always
share a configuration, so the comparison isolates the fusion).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from syncopate.bench.shapes import Shape


KERNELS = ("ptr", "tma", "persistent", "persistent-flat")
PERSISTENT_KERNELS = ("persistent", "persistent-flat")  # gemm_bf16_persistent.py, FLATTEN off / on


def check_positive_ints(config: object, skip: tuple[str, ...] = ()) -> None:
    """Every field of the dataclass ``config`` (but ``skip``) is a positive int."""
    for name, value in asdict(config).items():  # type: ignore[call-overload]
        if name not in skip and (not isinstance(value, int) or value < 1):
            raise ValueError(f"{type(config).__name__}.{name} must be a positive int, got {value!r}")


@dataclass(frozen=True)
class GemmConfig:
    """Constexpr block sizes plus Triton launch options."""

    block_m: int = 128
    block_n: int = 256
    block_k: int = 64
    num_warps: int = 8
    num_stages: int = 3
    # "ptr": kernels/gemm_bf16.py (pointers); "tma": gemm_bf16_tma.py;
    # "persistent"/"persistent-flat": gemm_bf16_persistent.py
    kernel: str = "ptr"

    def __post_init__(self) -> None:
        if self.kernel not in KERNELS:
            raise ValueError(f"GemmConfig.kernel must be one of {', '.join(KERNELS)}, got {self.kernel!r}")
        check_positive_ints(self, skip=("kernel",))
        for name in ("block_m", "block_n", "block_k"):
            value = getattr(self, name)
            if value & (value - 1):
                raise ValueError(f"GemmConfig.{name} must be a power of two (tl.arange), got {value}")

    def constexprs(self) -> dict[str, int]:
        """The kernel's constexpr keyword arguments."""
        return {"BLOCK_M": self.block_m, "BLOCK_N": self.block_n, "BLOCK_K": self.block_k}

    def launch_options(self) -> dict[str, int]:
        return {"num_warps": self.num_warps, "num_stages": self.num_stages}

    def text(self) -> str:
        return (f"{self.kernel} {self.block_m}x{self.block_n}x{self.block_k} "
                f"warps={self.num_warps} stages={self.num_stages}")


SHAPE_TILE = "shape"  # --tiles keyword: the shape's own configuration (tuned or default)


def parse_tile(text: str) -> tuple[int, ...]:
    """``"128x128"`` -> (128, 128); ``"64x256x64"`` -> (64, 256, 64): a fused
    row's GEMM tile (block_m, block_n[, block_k]). ValueError names the text."""
    try:
        sizes = tuple(int(part) for part in text.split("x"))
    except ValueError:
        sizes = ()
    if len(sizes) not in (2, 3) or any(s < 16 or s & (s - 1) for s in sizes):
        raise ValueError(f"tile '{text}' is not BMxBN or BMxBNxBK with powers of two >= 16 (e.g. 128x128)")
    return sizes


def with_tile(config: GemmConfig, tile: str) -> GemmConfig:
    """``config`` with the block sizes of ``tile`` (see :func:`parse_tile`;
    ``""`` keeps it); kernel, warps, stages and an unnamed block_k stay.

    Why fused rows take their own tile: in an all-gather GEMM the tiles of
    the last chunk start only when it arrives, and then take one tile's
    whole K loop, so the time after the last byte is one tile's latency;
    smaller tiles shorten it at some cost in GEMM throughput."""
    if not tile:
        return config
    sizes = parse_tile(tile)
    return replace(config, block_m=sizes[0], block_n=sizes[1], block_k=sizes[2] if len(sizes) > 2 else config.block_k)


GPU_DEFAULT = GemmConfig(block_m=128, block_n=256, block_k=64, num_warps=8, num_stages=3)
CPU_DEFAULT = GemmConfig(block_m=16, block_n=16, block_k=16, num_warps=1, num_stages=1)

# (workload, shape name) -> config; the per-shape tuning hook.
PER_SHAPE: dict[tuple[str, str], GemmConfig] = {}


def config_for(shape: Shape, cpu: bool = False) -> GemmConfig:
    """The configuration for ``shape``: the per-shape entry if any, else the default."""
    if cpu:
        return PER_SHAPE.get((shape.workload, shape.name), CPU_DEFAULT)
    return PER_SHAPE.get((shape.workload, shape.name), GPU_DEFAULT)
