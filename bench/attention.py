"""The ``ag-attn`` workload: context-parallel attention with K/V all-gathered
along the sequence.

Rank r holds queries ``q`` (S/W x H x D) of its part of the sequence and
rows ``[r*S/W, (r+1)*S/W)`` of the keys and values (S/W x KV x D each); its
output is ``softmax(q K^T / sqrt(D)) V`` over the whole sequence (non-causal,
query head h reads key/value head h // (H/KV)), S/W x H x D.

Rows (the report keeps the GEMM tables' row names; for this workload the
"cuBLAS" engine is torch's ``scaled_dot_product_attention``):

``cuBLAS+NCCL``   all_gather_into_tensor of K and of V, then SDPA (flash, enable_gqa)
``async-TP``      n/a: torch has no fused all-gather attention
``Triton+NCCL``   the two all-gathers, then the Triton kernel (``kernels/attn_bf16.py``)
``cuBLAS alone``  SDPA on the already gathered K/V
``Triton alone``  the Triton kernel on the already gathered K/V
``NCCL alone``    the two all-gathers (checked as the stacked gathered K and V)
syncopate         ``attn_kernel`` fused with ``all-gather{tensor=k_ptr dim=0 size=N_KV}``
                  and the same for ``v_ptr`` by ``overlap{... hoist_loops=true}`` (or, for
                  ``--attn-waits walk`` rows, with per-iteration ``wait_span_loop``);
                  K and V live in symmetric buffers; no nccl rows (see fused.NCCL_ATTN)

The fp32 reference is computed one query head at a time (an S/W x S score
matrix each), so the GPU never holds all heads' scores at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from syncopate.bench import comm
from syncopate.bench.check import poison, poison_allocator
from syncopate.bench.configs import check_positive_ints
from syncopate.bench.context import BenchWorld
from syncopate.kernels import source_path
from syncopate.bench.problem import AG_VERSIONS, GATHERED, OUT, BenchSpec, randn, reference_key, seed_of
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

PLANS = (("k_ptr", "agk"), ("v_ptr", "agv"))  # (tensor, plan name) of the K and V all-gathers, size N_KV
KERNEL_FILE, KERNEL_NAME = "attn_bf16.py", "attn_kernel"


@dataclass(frozen=True)
class AttnConfig:
    """Block sizes and launch options of the Triton attention kernel."""

    block_m: int = 128
    block_n: int = 64
    num_warps: int = 8
    num_stages: int = 3

    def __post_init__(self) -> None:
        check_positive_ints(self)

    def text(self) -> str:
        return f"attn {self.block_m}x{self.block_n} warps={self.num_warps} stages={self.num_stages}"


# The fastest of the tiles tried for the unmasked kernel on Hopper at S_q = 4096, N_KV = 8192, 64 heads:
# taller tiles reuse each K/V block for more queries.
GPU_ATTN = AttnConfig(block_m=256, block_n=64, num_warps=8, num_stages=3)
CPU_ATTN = AttnConfig(block_m=16, block_n=16, num_warps=1, num_stages=1)


@dataclass(frozen=True)
class AttnDims:
    """The sizes of one ag-attn shape at world size W."""

    seq: int
    heads: int
    kv_heads: int
    head_dim: int
    world: int

    @classmethod
    def of(cls, shape: Shape, world: int) -> AttnDims:
        p = dict(shape.params)
        dims = cls(p["seq"], p["heads"], p["kv_heads"], p["head_dim"], world)
        if dims.seq % world:
            raise ValueError(f"ag-attn shape '{shape.name}': seq={dims.seq} is not divisible by W={world}")
        if dims.heads % dims.kv_heads:
            raise ValueError(f"ag-attn shape '{shape.name}': heads={dims.heads} is not a multiple of "
                             f"kv_heads={dims.kv_heads}")
        return dims

    @property
    def local(self) -> int:
        return self.seq // self.world

    @property
    def group(self) -> int:
        return self.heads // self.kv_heads


@dataclass
class AttnProblem:
    """This rank's queries, K/V shards, the gathered K/V and the references;
    ``kv_versions[i]`` is this rank's (K, V) shards of input version ``i``
    (version 0 = ``k``, ``v``), with references ``out@i`` (see
    ``problem.reference_key``): the fused rows' checks cycle through them."""

    dims: AttnDims
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    k_full: torch.Tensor
    v_full: torch.Tensor
    references: dict[str, torch.Tensor] = field(default_factory=dict)
    kv_versions: tuple[tuple[torch.Tensor, torch.Tensor], ...] = ()

    @property
    def versions(self) -> int:
        return max(1, len(self.kv_versions))


def make_attn_problem(shape: Shape, world: int, rank: int, device: torch.device, dtype: torch.dtype,
                      seed: int = 0) -> AttnProblem:
    """Rank ``rank``'s inputs and references (every rank draws every rank's K/V)."""
    d = AttnDims.of(shape, world)
    q = randn((d.local, d.heads, d.head_dim), seed_of(seed, rank, 0), device, dtype)
    shards, references, fulls = [], {}, []
    for version in range(AG_VERSIONS):
        tensors = (1, 2) if version == 0 else (1 + 2 * version, 2 + 2 * version)  # tensor 0 is q
        ks = [randn((d.local, d.kv_heads, d.head_dim), seed_of(seed, s, tensors[0]), device, dtype)
              for s in range(world)]
        vs = [randn((d.local, d.kv_heads, d.head_dim), seed_of(seed, s, tensors[1]), device, dtype)
              for s in range(world)]
        k_full, v_full = torch.cat(ks).contiguous(), torch.cat(vs).contiguous()
        shards.append((ks[rank], vs[rank]))
        fulls.append((k_full, v_full))
        references[reference_key(OUT, version)] = reference_attention(q, k_full, v_full)
        references[reference_key(GATHERED, version)] = torch.stack([k_full, v_full])
    (k, v), (k_full, v_full) = shards[0], fulls[0]
    return AttnProblem(d, q, k, v, k_full, v_full, references=references, kv_versions=tuple(shards))


def reference_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """fp32 ``softmax(q k^T / sqrt(D)) v`` per query head (grouped K/V heads)."""
    group = q.shape[1] // k.shape[1]
    out = torch.empty(q.shape, dtype=torch.float32, device=q.device)
    scale = q.shape[2] ** -0.5
    for h in range(q.shape[1]):
        kh, vh = k[:, h // group].float(), v[:, h // group].float()
        scores = (q[:, h].float() @ kh.T) * scale
        out[:, h] = torch.softmax(scores, dim=-1) @ vh
    return out


def launch_attention(kernel: Any, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                     config: AttnConfig) -> None:
    """``o = attention(q, k, v)`` with ``kernel`` (the original or a fused one)."""
    s_q, heads, dim = q.shape
    n_kv, kv_heads, _ = k.shape
    if s_q % config.block_m or n_kv % config.block_n:
        raise ValueError(f"launch_attention: the kernel has no masks; S_q={s_q} must divide by block_m="
                         f"{config.block_m} and N_KV={n_kv} by block_n={config.block_n}")
    grid = (-(-s_q // config.block_m), heads)
    kernel[grid](q, k, v, o, s_q, n_kv, dim ** -0.5, *q.stride(), *k.stride(), *v.stride(), *o.stride(),
                 GROUP=heads // kv_heads, BLOCK_M=config.block_m, BLOCK_N=config.block_n, BLOCK_D=dim,
                 num_warps=config.num_warps, num_stages=config.num_stages)


def attn_kernel() -> Any:
    from syncopate.kernels.attn_bf16 import attn_kernel as kernel

    return kernel


def kernel_path() -> str:
    return source_path(KERNEL_FILE)


def sdpa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """torch's attention on the (S, heads, D) layout; returns S_q x H x D."""
    out = torch.nn.functional.scaled_dot_product_attention(
        q.unsqueeze(0).transpose(1, 2), k.unsqueeze(0).transpose(1, 2), v.unsqueeze(0).transpose(1, 2),
        enable_gqa=True)
    return out.transpose(1, 2).squeeze(0)


# -- baselines ------------------------------------------------------------------

def baseline_variants(spec: BenchSpec, ctx: BenchWorld) -> list[Variant]:
    p, cfg, group = spec.problem, spec.config, ctx.group
    assert isinstance(p, AttnProblem)
    d = p.dims
    st: dict[str, Any] = {}
    kv_shape = (d.seq, d.kv_heads, d.head_dim)

    def alloc(*names: str) -> None:
        for name in names:
            if name == "kv":
                st["kv"] = torch.empty((2, *kv_shape), dtype=ctx.dtype, device=ctx.device)
            else:
                st["o"] = torch.empty(p.q.shape, dtype=ctx.dtype, device=ctx.device)

    def gather() -> None:
        comm.all_gather_rows(st["kv"][0], p.k, group)
        comm.all_gather_rows(st["kv"][1], p.v, group)

    def seq_sdpa() -> None:
        gather()
        st["o"] = sdpa(p.q, st["kv"][0], st["kv"][1])

    def seq_triton() -> None:
        gather()
        launch_attention(attn_kernel(), p.q, st["kv"][0], st["kv"][1], st["o"], cfg)

    def sdpa_alone() -> None:
        st["o"] = sdpa(p.q, p.k_full, p.v_full)

    def triton_alone() -> None:
        launch_attention(attn_kernel(), p.q, p.k_full, p.v_full, st["o"], cfg)

    def out() -> torch.Tensor | None:
        return st.get("o")

    def poison_sdpa_output() -> None:
        poison(st.get("kv"))
        poison_allocator(tuple(p.q.shape), ctx.dtype, ctx.device)

    return [
        Variant(SEQ_CUBLAS, seq_sdpa, out, lambda: alloc("kv"), poison_sdpa_output, st.clear, BASELINE, CUBLAS, OUT),
        unavailable(ASYNC_TP, "torch has no fused all-gather attention", BASELINE, CUBLAS),
        Variant(SEQ_TRITON, seq_triton, out, lambda: alloc("kv", "o"), lambda: poison(st["kv"], st["o"]), st.clear,
                BASELINE, TRITON, OUT),
        Variant(CUBLAS_ALONE, sdpa_alone, out, lambda: None, poison_sdpa_output, st.clear, ALONE, None, OUT),
        Variant(TRITON_ALONE, triton_alone, out, lambda: alloc("o"), lambda: poison(st["o"]), st.clear,
                ALONE, None, OUT),
        Variant(COMM_ALONE, gather, lambda: st.get("kv"), lambda: alloc("kv"), lambda: poison(st["kv"]), st.clear,
                ALONE, None, GATHERED),
    ]


# -- syncopate rows -------------------------------------------------------------

_PROGRAMS: dict[tuple[int, str, str, int], Any] = {}


def plans(world: int, chunks: int = 1) -> list[Any]:
    """The K and V all-gathers (the template's typed options)."""
    from syncopate.ir.plans.templates import template  # imports sympy: compiling rows only

    return [template("all-gather", world, tensor=tensor, dim=0, name=name, size="N_KV", chunks_per_rank=chunks)
            for tensor, name in PLANS]


WAITS = ("hoist", "walk")  # how the K/V waits of the loop over the sequence are placed (see pipeline)


def pipeline(backend: str, order: str, waits: str = "hoist") -> Any:
    """The rows' pipeline. ``hoist``: one wait per tile and tensor above the
    loop over the sequence (``hoist_loops``); ``walk``: a
    ``chunk.wait_span_loop`` per iteration that checks only chunks the
    previous iteration did not. A wait inside the loop stops Triton from
    software-pipelining it, so even ``walk`` is much slower than ``hoist``
    (and checking every chunk on every iteration slower still): ``hoist``
    is the default."""
    if waits not in WAITS:
        raise ValueError(f"attention waits must be one of {', '.join(WAITS)}, got {waits!r}")
    return overlap_pass(backend, order, hoist_loops=waits == "hoist")


def program_for(world: int, backend: str, order: str, chunks: int = 1, waits: str = "hoist") -> Any:
    """The compiled FusedProgram of the attention kernel (cached per process)."""
    key = (world, backend, order, chunks, waits)
    if key not in _PROGRAMS:
        from syncopate.runtime.fused import compile_fused

        _PROGRAMS[key] = compile_fused(kernel_path(), KERNEL_NAME, plans(world, chunks),
                                       pipeline(backend, order, waits))
    return _PROGRAMS[key]


def fused_variants(spec: BenchSpec, ctx: BenchWorld, rows: Sequence[FusedOptions],
                   waits: Sequence[str] = ("hoist",)) -> list[Variant]:
    """One fused row per option set and wait placement (``walk`` rows are
    named ``.../walk``); K and V are gathered into symmetric buffers."""
    return [fused_row(spec, ctx, row, w) for row in rows for w in waits]


def fused_row(spec: BenchSpec, ctx: BenchWorld, row: FusedOptions, waits: str = "hoist") -> Variant:
    p, cfg = spec.problem, spec.config
    assert isinstance(p, AttnProblem)
    lo, hi = spec.own_rows
    st: dict[str, Any] = {}

    def setup() -> None:
        from syncopate.runtime.fused import FusedKernel

        program = program_for(spec.world, row.backend, row.order, row.chunks, waits)
        st["kernel"] = FusedKernel(program, attn_kernel(), ctx.gpu.context(ce_lanes=row.lanes))
        shape = tuple(p.k_full.shape)
        st["k"], st["v"] = (ctx.shared_symmetric(("attn-symmetric", name, shape, p.k_full.dtype), shape, p.k_full.dtype)
                            for name in ("k", "v"))
        st["o"] = torch.empty(p.q.shape, dtype=ctx.dtype, device=ctx.device)
        st["k_src"], st["v_src"] = p.k.clone(), p.v.clone()  # the producer's outputs: this rank's K/V rows

    def produce(version: int) -> None:
        k, v = p.kv_versions[version]
        st["k_src"].copy_(k)
        st["v_src"].copy_(v)

    def poison_all() -> None:  # the runner barriers before and after: no peer is reading the buffers
        poison(st["o"], st["k"], st["v"])

    def run() -> None:  # what a call pays: stage this rank's K/V rows on the compute stream, then launch
        st["k"][lo:hi].copy_(st["k_src"])
        st["v"][lo:hi].copy_(st["v_src"])
        launch_attention(st["kernel"], p.q, st["k"], st["v"], st["o"], cfg)

    name = row.name + ("/walk" if waits == "walk" else "")
    return Variant(name, run, lambda: st.get("o"), setup, poison_all, st.clear, FUSED, TRITON, OUT,
                   meta={**row.meta, "waits": waits}, versions=p.versions, produce=produce)
