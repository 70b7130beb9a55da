"""The ``a2a-gemm`` workload: MoE token dispatch (all-to-all) + grouped GEMM.

Expert parallelism over W ranks, E experts (E/W per rank), each of a rank's
``tokens`` routed to ``topk`` experts, uniformly: rank s sends ``c =
tokens * topk / E`` rows to every expert, so its send buffer ``x`` (tokens *
topk x hidden) holds, for each destination d in order, c rows per local
expert of d. After the all-to-all a rank's receive buffer holds, for each
source s in order, c rows per local expert; the grouped GEMM multiplies each
(source, expert) segment by that expert's ``hidden x ffn`` weight (the MoE
up projection).

Rows (the report keeps the GEMM tables' row names):

``cuBLAS+NCCL``   all_to_all_single, then one torch.matmul per (source, expert) segment
``async-TP``      n/a: torch has no fused all-to-all GEMM
``Triton+NCCL``   all_to_all_single, then the Triton grouped GEMM of the config's kernel
                  (``kernels/grouped_gemm_bf16.py``, ``_tma.py`` or ``_persistent.py``, see GROUPED_KERNELS)
``cuBLAS alone``, ``Triton alone``  the GEMMs on the received rows already in place
``NCCL alone``    all_to_all_single (checked as the receive buffer)
syncopate         the grouped GEMM fused with ``all-to-all{tensor=x_ptr dim=0 splits=...}``;
                  the send buffer is symmetric (``GpuWorld.context(sources=...)``); no nccl
                  rows: tiles find their rows through a loaded table, so no tile order puts
                  local rows first and spinning tiles would starve NCCL
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

import torch

from syncopate.bench import comm, gemm
from syncopate.bench.check import poison
from syncopate.bench.configs import GemmConfig, with_tile
from syncopate.bench.context import BenchWorld
from syncopate.kernels import source_path
from syncopate.bench.problem import GATHERED, OUT, BenchSpec, randn, seed_of
from syncopate.bench.shapes import Shape
from syncopate.bench.variants import (
    ALONE,
    ASYNC_TP,
    BASELINE,
    COMM_ALONE,
    CUBLAS,
    CUBLAS_ALONE,
    FUSED,
    SEQ_CUBLAS,
    SEQ_TRITON,
    TRITON,
    TRITON_ALONE,
    FusedOptions,
    Variant,
    overlap_pass,
    unavailable,
)

# GemmConfig.kernel -> (module, kernel): pointers, TMA, or TMA in a persistent GROUP_M tile loop
GROUPED_KERNELS = {"ptr": ("grouped_gemm_bf16", "grouped_gemm_kernel"),
                   "tma": ("grouped_gemm_bf16_tma", "grouped_gemm_tma_kernel"),
                   "persistent": ("grouped_gemm_bf16_persistent", "grouped_gemm_persistent_kernel")}


@dataclass(frozen=True)
class MoeDims:
    """The sizes of one a2a-gemm shape at world size W."""

    tokens: int
    hidden: int
    ffn: int
    experts: int
    topk: int
    world: int

    @classmethod
    def of(cls, shape: Shape, world: int) -> MoeDims:
        p = dict(shape.params)
        d = cls(p["tokens"], p["hidden"], p["ffn"], p["experts"], p["topk"], world)
        if d.experts % world:
            raise ValueError(f"a2a-gemm shape '{shape.name}': experts={d.experts} is not divisible by W={world}")
        if (d.tokens * d.topk) % d.experts:
            raise ValueError(f"a2a-gemm shape '{shape.name}': tokens*topk={d.tokens * d.topk} is not divisible by "
                             f"experts={d.experts}")
        return d

    @property
    def local_experts(self) -> int:
        return self.experts // self.world

    @property
    def per_expert(self) -> int:
        """Rows a rank sends to each expert (c)."""
        return self.tokens * self.topk // self.experts

    @property
    def rows(self) -> int:
        """Rows of a send (and of a receive) buffer."""
        return self.tokens * self.topk

    @property
    def block(self) -> int:
        """Rows a rank sends to one rank (and receives from one)."""
        return self.local_experts * self.per_expert

    def splits(self) -> list[int]:
        """The plan's W*W split matrix, row-major [src][dst]."""
        return [self.block] * (self.world * self.world)


@dataclass
class MoeProblem:
    """This rank's send buffer, received rows (for the alone rows), weights and references."""

    dims: MoeDims
    send: torch.Tensor  # rows x hidden, by destination then expert
    recv: torch.Tensor  # rows x hidden, by source then expert (what the all-to-all delivers)
    w: torch.Tensor  # local_experts x hidden x ffn
    references: dict[str, torch.Tensor] = field(default_factory=dict)


def make_moe_problem(shape: Shape, world: int, rank: int, device: torch.device, dtype: torch.dtype,
                     seed: int = 0) -> MoeProblem:
    d = MoeDims.of(shape, world)
    sends = [randn((d.rows, d.hidden), seed_of(seed, s, 0), device, dtype) for s in range(world)]
    recv = torch.cat([s[rank * d.block:(rank + 1) * d.block] for s in sends]).contiguous()
    w = randn((d.local_experts, d.hidden, d.ffn), seed_of(seed, rank, 1), device, dtype)
    out = torch.empty((d.rows, d.ffn), dtype=torch.float32, device=device)
    for lo, hi, e in segments(d):
        out[lo:hi] = recv[lo:hi].float() @ w[e].float()
    return MoeProblem(d, sends[rank], recv, w, references={OUT: out, GATHERED: recv})


def segments(d: MoeDims) -> list[tuple[int, int, int]]:
    """(first row, end row, local expert) of each (source, expert) segment of a receive buffer."""
    c = d.per_expert
    return [(i * c, (i + 1) * c, i % d.local_experts) for i in range(d.world * d.local_experts)]


def tile_tables(d: MoeDims, block_m: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The kernel's per-tile (first row, rows, expert) tables."""
    starts, sizes, experts = [], [], []
    for lo, hi, e in segments(d):
        for t0 in range(lo, hi, block_m):
            starts.append(t0)
            sizes.append(min(block_m, hi - t0))
            experts.append(e)
    tables = [torch.tensor(v, dtype=torch.int32, device=device) for v in (starts, sizes, experts)]
    return tables[0], tables[1], tables[2]


def launch_grouped_gemm(kernel: Any, x: torch.Tensor, w: torch.Tensor, out: torch.Tensor,
                        tables: tuple[torch.Tensor, torch.Tensor, torch.Tensor], config: GemmConfig,
                        reserved: int = 0) -> None:
    """``out[segment] = x[segment] @ w[expert]`` for every tile of ``tables``
    (the persistent kernel leaves ``reserved`` SMs to other programs of its launch)."""
    m, k = x.shape
    n = w.shape[2]
    grid: tuple[int, ...] = (tables[0].numel(), -(-n // config.block_n))
    extra = {}
    if config.kernel == "persistent":  # one program per SM over the tables' row tiles x column tiles
        extra = {"TILES": grid[0]}
        grid = (gemm.persistent_programs(grid[0] * grid[1], x.device, reserved),)
    kernel[grid](x, w, out, *tables, m, n, k, x.stride(0), x.stride(1), *w.stride(), out.stride(0), out.stride(1),
                 **extra, **grouped_constexprs(config, grid[0]), **config.launch_options())


def grouped_constexprs(config: GemmConfig, programs: int) -> dict[str, int]:
    """Every constexpr argument of ``config``'s grouped kernel on ``programs``
    programs: the block sizes, plus PROGRAMS and GROUP_M for the persistent one."""
    extra = gemm.persistent_constexprs(programs) if config.kernel == "persistent" else {}
    return {**config.constexprs(), **extra}


def _grouped(config: GemmConfig) -> tuple[str, str]:
    if config.kernel not in GROUPED_KERNELS:
        raise ValueError(f"a2a-gemm has no '{config.kernel}' grouped GEMM kernel (it has {', '.join(GROUPED_KERNELS)})")
    return GROUPED_KERNELS[config.kernel]


def segment_matmuls(d: MoeDims, x: torch.Tensor, w: torch.Tensor, out: torch.Tensor) -> None:
    """The cuBLAS grouped GEMM: one torch.matmul per (source, expert) segment."""
    for lo, hi, e in segments(d):
        torch.matmul(x[lo:hi], w[e], out=out[lo:hi])


def grouped_kernel(config: GemmConfig) -> Any:
    """The original ``@triton.jit`` grouped GEMM of ``config``."""
    module, name = _grouped(config)
    if config.kernel != "ptr":
        gemm.scratch_allocator()
    return getattr(importlib.import_module(f"syncopate.kernels.{module}"), name)


def kernel_name(config: GemmConfig) -> str:
    return _grouped(config)[1]


def kernel_path(config: GemmConfig) -> str:
    """The kernel's source file (what ``compile_fused`` reads)."""
    return source_path(_grouped(config)[0] + ".py")


# -- baselines ------------------------------------------------------------------

def baseline_variants(spec: BenchSpec, ctx: BenchWorld) -> list[Variant]:
    p, cfg, group = spec.problem, spec.config, ctx.group
    assert isinstance(p, MoeProblem)
    d = p.dims
    st: dict[str, Any] = {}

    def alloc(*names: str) -> None:
        for name in names:
            shape = (d.rows, d.hidden) if name == "recv" else (d.rows, d.ffn)
            st[name] = torch.empty(shape, dtype=ctx.dtype, device=ctx.device)
        st.setdefault("tables", tile_tables(d, cfg.block_m, ctx.device))

    def cublas(x: torch.Tensor) -> None:
        segment_matmuls(d, x, p.w, st["out"])

    def triton(x: torch.Tensor) -> None:
        launch_grouped_gemm(grouped_kernel(cfg), x, p.w, st["out"], st["tables"], cfg)

    def seq(gemm: Any) -> Any:
        def run() -> None:
            comm.all_to_all_rows(st["recv"], p.send, d.block, group)
            gemm(st["recv"])
        return run

    def out() -> torch.Tensor | None:
        return st.get("out")

    def both() -> None:
        poison(st["recv"], st["out"])

    return [
        Variant(SEQ_CUBLAS, seq(cublas), out, lambda: alloc("recv", "out"), both, st.clear, BASELINE, CUBLAS, OUT),
        unavailable(ASYNC_TP, "torch has no fused all-to-all GEMM", BASELINE, CUBLAS),
        Variant(SEQ_TRITON, seq(triton), out, lambda: alloc("recv", "out"), both, st.clear, BASELINE, TRITON, OUT),
        Variant(CUBLAS_ALONE, lambda: cublas(p.recv), out, lambda: alloc("out"), lambda: poison(st["out"]), st.clear,
                ALONE, None, OUT),
        Variant(TRITON_ALONE, lambda: triton(p.recv), out, lambda: alloc("out"), lambda: poison(st["out"]),
                st.clear, ALONE, None, OUT),
        Variant(COMM_ALONE, lambda: comm.all_to_all_rows(st["recv"], p.send, d.block, group), lambda: st.get("recv"),
                lambda: alloc("recv"), lambda: poison(st["recv"]), st.clear, ALONE, None, GATHERED),
    ]


# -- syncopate rows -------------------------------------------------------------

_PROGRAMS: dict[tuple, Any] = {}


def plan(d: MoeDims) -> Any:
    """The dispatch's all-to-all (the template's typed options)."""
    from syncopate.ir.plans.templates import template  # imports sympy: compiling rows only

    return template("all-to-all", d.world, tensor="x_ptr", dim=0, splits=tuple(d.splits()))


def program_for(d: MoeDims, backend: str, order: str, config: GemmConfig) -> Any:
    """The compiled FusedProgram (cached per process; the splits are part of the plan)."""
    key = (d, backend, order, config.kernel)
    if key not in _PROGRAMS:
        from syncopate.runtime.fused import compile_fused

        _PROGRAMS[key] = compile_fused(kernel_path(config), kernel_name(config), [plan(d)],
                                       overlap_pass(backend, order))
    return _PROGRAMS[key]


def fused_row(spec: BenchSpec, ctx: BenchWorld, row: FusedOptions) -> Variant:
    """One fused row: the grouped GEMM reads the receive buffer the all-to-all
    fills, launched with the row's own tile if it has one."""
    p, cfg = spec.problem, with_tile(spec.config, row.tile)
    assert isinstance(p, MoeProblem)
    d = p.dims
    if row.chunks > 1:
        return unavailable(row.name, "the all-to-all plan has one chunk per (source, destination)", **row.meta)
    own = (spec.rank * d.block, (spec.rank + 1) * d.block)
    st: dict[str, Any] = {}

    def setup() -> None:
        from syncopate.runtime.fused import FusedKernel

        send = st["send"] = ctx.shared_symmetric(("moe-send", tuple(p.send.shape), p.send.dtype),
                                                 tuple(p.send.shape), p.send.dtype)
        context = ctx.gpu.context(sources={"x_ptr": send}, ce_lanes=row.lanes)
        st["kernel"] = FusedKernel(program_for(d, row.backend, row.order, cfg), grouped_kernel(cfg), context)
        st["reserved"] = gemm.comm_programs(st["kernel"].program, ctx.gpu)
        st["recv"] = torch.empty((d.rows, d.hidden), dtype=ctx.dtype, device=ctx.device)
        st["out"] = torch.empty((d.rows, d.ffn), dtype=ctx.dtype, device=ctx.device)
        st["tables"] = tile_tables(d, cfg.block_m, ctx.device)

    def poison_all() -> None:  # the runner barriers before and after: no peer is reading the send buffer
        poison(st["recv"], st["out"], st["send"])

    def run() -> None:
        # what a call pays: stage the tokens in the symmetric send buffer and the
        # rows a rank sends itself in its receive buffer, on the compute stream
        st["send"].copy_(p.send)
        st["recv"][own[0]:own[1]].copy_(p.send[own[0]:own[1]])
        launch_grouped_gemm(st["kernel"], st["recv"], p.w, st["out"], st["tables"], cfg, st["reserved"])

    return Variant(row.name, run, lambda: st.get("out"), setup, poison_all, st.clear, FUSED, TRITON, OUT,
                   meta=row.meta)
