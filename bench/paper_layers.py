"""The paper's remaining workloads (issue 36, item 6): ``moe-layer``
(GEMM-A2A-GEMM), ``ulysses-attn`` (attention + all-to-all) and ``ring-attn``.

``moe-layer``: an expert-parallel MoE layer with linear experts. Rank s has
``tokens`` tokens, each routed to ``topk`` experts, uniformly (bench/moe.py's
dims: ``c = tokens * topk / experts`` rows per expert from each rank); its
dispatch send buffer holds the routed rows by destination, then expert, and
token t's k-th choice is row ``idx[t, k]`` of it. The layer: dispatch
all-to-all, per-expert up (hidden -> ffn) and down (ffn -> hidden) GEMMs on
the expert's rank, combine all-to-all back (the splits transposed: uniform
here), ``out[t] = sum_k gate[t, k] * y[idx[t, k]]``.

``ulysses-attn``: sequence-parallel multi-head attention (DeepSpeed Ulysses)
and its output projection. Rank r has rows ``[r*S/W, (r+1)*S/W)`` of Q, K, V
for every head ([S/W, H, D]); an all-to-all gives it the whole sequence for
heads ``[r*H/W, (r+1)*H/W)``, attention runs there, a second all-to-all
brings its rows of every head back and ``out = O @ W_o`` (W_o: H*D x hidden,
on every rank).

``ring-attn``: context-parallel attention (non-causal, grouped K/V heads)
with K/V passed around the ring; each rank has S/W queries and its shard of
K and V, and ends with its queries' output over the whole sequence.

Rows (the report keeps the GEMM tables' row names; "cuBLAS" is torch:
matmul, ``scaled_dot_product_attention``, indexing):

``cuBLAS+NCCL``   the collectives with torch.distributed (``all_to_all_single``, ``all_gather_into_tensor``),
                  then torch's compute; every layout copy the layer needs is in the row
``async-TP``      n/a: torch fuses no all-to-all or ring exchange with compute
``Triton+NCCL``   the same collectives, then the Triton kernels the fused rows fuse
                  (``kernels/grouped_gemm_bf16.py``, ``moe_combine.py``, ``mha_fwd.py``, ``gemm_bf16.py``,
                  ``ring_attn.py``)
``cuBLAS alone``, ``Triton alone``  the compute on already exchanged inputs; where the layer has two
                  compute stages split by a collective, the second reads the exchanged reference
                  of the first's output, and the row's result is poisoned unless the first stage's
                  own output passes its check too (so both stages are checked)
``NCCL alone``    the layer's collectives alone (the second one on the reference of what it moves),
                  checked as what the last one delivers
syncopate         every collective fused into the kernel that reads it: moe-layer's dispatch into the up
                  grouped GEMM and its combine into the combine kernel (the down GEMM writes the combine's
                  symmetric send buffer); ulysses-attn's three all-to-alls into the attention kernel and the
                  way back (``all-to-all`` along dim 1 of A) into the output projection; ring-attn's
                  ``ring-exchange`` of K and V into the ring-order attention kernel. No nccl rows (tiles
                  spin on chunks NCCL would need SMs for: see fused.NCCL_A2A, NCCL_ATTN)

Every reference is fp32 from the dtype's inputs, with each intermediate the
layer stores (h, y, O) rounded to the dtype, as every row stores it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from syncopate.bench import comm
from syncopate.bench.check import check_result, poison
from syncopate.bench.configs import GemmConfig
from syncopate.bench.context import BenchWorld
from syncopate.bench.problem import GATHERED, OUT, BenchSpec, randn, seed_of
from syncopate.bench.shapes import MOE_LAYER, RING_ATTN, ULYSSES_ATTN, Shape
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
from syncopate.kernels import source_path

WORKLOADS = (MOE_LAYER, ULYSSES_ATTN, RING_ATTN)
FIRST = "first"  # references key: the first compute stage's own output (see the module doc, alone rows)


@dataclass(frozen=True)
class LayerConfig:
    """The Triton kernels' blocks: GEMMs (``gemm``: bench/configs.py's) and attention."""

    gemm: GemmConfig
    block_m: int = 128  # attention: queries per tile
    block_n: int = 64  # attention: keys per iteration; moe combine: columns per tile
    num_warps: int = 8
    num_stages: int = 3

    def text(self) -> str:
        return (f"{self.gemm.text()}; attention/combine {self.block_m}x{self.block_n} warps={self.num_warps} "
                f"stages={self.num_stages}")

    def attn_options(self) -> dict[str, int]:
        return {"BLOCK_M": self.block_m, "BLOCK_N": self.block_n, "num_warps": self.num_warps,
                "num_stages": self.num_stages}


def config_for(gemm: GemmConfig, cpu: bool) -> LayerConfig:
    if cpu:
        return LayerConfig(gemm, 16, 16, 1, 1)
    return LayerConfig(gemm)


@dataclass
class LayerProblem:
    """This rank's inputs (``inputs``) and the fp32 references its rows are checked against."""

    workload: str
    dims: dict[str, int]
    inputs: dict[str, Any]
    references: dict[str, torch.Tensor] = field(default_factory=dict)

    @property
    def versions(self) -> int:
        return 1


def _rounded(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``t`` as the layer stores it (in ``dtype``), back in fp32."""
    return t.to(dtype).float()


def make_problem(shape: Shape, world: int, rank: int, device: torch.device, dtype: torch.dtype,
                 seed: int = 0) -> LayerProblem:
    d = dict(shape.params)
    make = {MOE_LAYER: _moe_problem, ULYSSES_ATTN: _ulysses_problem, RING_ATTN: _ring_problem}[shape.workload]
    return make(shape, d, world, rank, device, dtype, seed)


# -- moe-layer --------------------------------------------------------------------

def _moe_dims(shape: Shape, world: int) -> Any:
    from syncopate.bench.moe import MoeDims

    return MoeDims.of(shape, world)


def _moe_routing(d: Any, source: int, seed: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Rank ``source``'s (idx, gate): its tokens' rows in the dispatch send
    buffer (a permutation: every row is one token's choice) and weights."""
    g = torch.Generator(device="cpu").manual_seed(seed_of(seed, source, 7))
    idx = torch.randperm(d.rows, generator=g).view(d.tokens, d.topk)
    gate = torch.softmax(torch.randn(d.tokens, d.topk, generator=g), dim=1)
    return idx.to(device=device, dtype=torch.int32), gate.to(device)


def _moe_problem(shape: Shape, p: dict[str, int], world: int, rank: int, device: torch.device, dtype: torch.dtype,
                 seed: int) -> LayerProblem:
    from syncopate.bench.moe import segments

    d = _moe_dims(shape, world)
    sends, routes = [], []
    for s in range(world):  # every rank's tokens, routed: its dispatch send buffer
        x = randn((d.tokens, d.hidden), seed_of(seed, s, 0), device, dtype)
        idx, gate = _moe_routing(d, s, seed, device)
        send = torch.empty((d.rows, d.hidden), dtype=dtype, device=device)
        send[idx.long().flatten()] = x.repeat_interleave(d.topk, dim=0)
        sends.append(send)
        routes.append((idx, gate))
    w1 = [randn((d.local_experts, d.hidden, d.ffn), seed_of(seed, s, 1), device, dtype) for s in range(world)]
    w2 = [randn((d.local_experts, d.ffn, d.hidden), seed_of(seed, s, 2), device, dtype) for s in range(world)]
    scale = (d.hidden * d.ffn) ** -0.25  # keeps y near unit size: entries of x @ w1 @ w2 are ~sqrt(hidden * ffn)
    w1 = [(w * scale).to(dtype) for w in w1]
    w2 = [(w * scale).to(dtype) for w in w2]

    def experts(e_rank: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The rank's received rows and their (fp32) expert outputs y."""
        recv = torch.cat([sends[s][e_rank * d.block:(e_rank + 1) * d.block] for s in range(world)])
        y = torch.empty((d.rows, d.hidden), dtype=torch.float32, device=device)
        for lo, hi, e in segments(d):
            h = _rounded(recv[lo:hi].float() @ w1[e_rank][e].float(), dtype)
            y[lo:hi] = _rounded(h @ w2[e_rank][e].float(), dtype)
        return recv, y

    outputs = [experts(e)[1] for e in range(world)]
    recv = experts(rank)[0]
    back = torch.cat([outputs[e][rank * d.block:(rank + 1) * d.block] for e in range(world)])  # by expert rank
    idx, gate = routes[rank]
    out = (gate[:, :, None] * back[idx.long()]).sum(1)
    inputs = {"send": sends[rank], "recv": recv, "w1": w1[rank], "w2": w2[rank], "idx": idx, "gate": gate,
              "y": outputs[rank].to(dtype), "back": back.to(dtype)}
    return LayerProblem(MOE_LAYER, {"dims": d}, inputs, {OUT: out, FIRST: outputs[rank], GATHERED: back})


def _moe_baselines(spec: BenchSpec, ctx: BenchWorld) -> list[Variant]:
    from syncopate.bench import moe
    from syncopate.kernels.moe_combine import moe_combine_kernel

    p, cfg, group = spec.problem, spec.config, ctx.group
    d, i = p.dims["dims"], p.inputs
    st: dict[str, Any] = {}

    def alloc() -> None:
        for name, cols in (("recv", d.hidden), ("h", d.ffn), ("y", d.hidden), ("back", d.hidden)):
            st[name] = torch.empty((d.rows, cols), dtype=ctx.dtype, device=ctx.device)
        st["out"] = torch.empty((d.tokens, d.hidden), dtype=ctx.dtype, device=ctx.device)
        st["tables"] = moe.tile_tables(d, cfg.gemm.block_m, ctx.device)

    def experts_torch(recv: torch.Tensor) -> None:
        moe.segment_matmuls(d, recv, i["w1"], st["h"])
        moe.segment_matmuls(d, st["h"], i["w2"], st["y"])

    def experts_triton(recv: torch.Tensor) -> None:
        kernel = moe.grouped_kernel(cfg.gemm)
        moe.launch_grouped_gemm(kernel, recv, i["w1"], st["h"], st["tables"], cfg.gemm)
        moe.launch_grouped_gemm(kernel, st["h"], i["w2"], st["y"], st["tables"], cfg.gemm)

    def combine_torch(back: torch.Tensor) -> None:
        st["out"] = (i["gate"][:, :, None] * back[i["idx"].long()].float()).sum(1).to(ctx.dtype)

    def combine_triton(back: torch.Tensor) -> None:
        launch_combine(moe_combine_kernel, back, i["idx"], i["gate"], st["out"], cfg)

    def layer(experts: Callable[[torch.Tensor], None], combine: Callable[[torch.Tensor], None]) -> Callable[[], None]:
        def run() -> None:
            comm.all_to_all_rows(st["recv"], i["send"], d.block, group)
            experts(st["recv"])
            comm.all_to_all_rows(st["back"], st["y"], d.block, group)
            combine(st["back"])
        return run

    def alone(experts: Callable[[torch.Tensor], None], combine: Callable[[torch.Tensor], None]) -> Callable[[], None]:
        def run() -> None:
            experts(i["recv"])
            combine(i["back"])
        return run

    def exchange() -> None:
        comm.all_to_all_rows(st["recv"], i["send"], d.block, group)
        comm.all_to_all_rows(st["back"], i["y"], d.block, group)

    out = _checked_first(spec, st, "out", "y")
    return _rows(st, alloc, layer(experts_torch, combine_torch), layer(experts_triton, combine_triton),
                 alone(experts_torch, combine_torch), alone(experts_triton, combine_triton), exchange,
                 plain_out=lambda: st.get("out"), alone_out=out, comm_out=lambda: st.get("back"),
                 no_fusion="torch has no fused all-to-all GEMM")


def launch_combine(kernel: Any, y: torch.Tensor, idx: torch.Tensor, gate: torch.Tensor, out: torch.Tensor,
                   cfg: LayerConfig) -> None:
    """``out[t] = sum_k gate[t, k] * y[idx[t, k]]`` with ``kernel`` (the original or a fused one)."""
    tokens, topk = idx.shape
    n = y.shape[1]
    grid = (tokens, -(-n // cfg.block_n))
    kernel[grid](y, idx, gate, out, n, y.stride(0), y.stride(1), out.stride(0), out.stride(1), TOPK=topk,
                 BLOCK_N=cfg.block_n, num_warps=min(cfg.num_warps, 4))


def _moe_fused(spec: BenchSpec, ctx: BenchWorld, row: FusedOptions, context: Callable[..., Any],
               exchanged: bool = False) -> Variant:
    """Dispatch fused into the up GEMM, the down GEMM (plain) into the
    combine's symmetric send buffer, combine fused into the combine kernel.
    ``exchanged`` (no-comm): every chunk is in place already."""
    from syncopate.bench import moe
    from syncopate.kernels.moe_combine import moe_combine_kernel
    from syncopate.runtime.fused import FusedKernel

    p, cfg = spec.problem, spec.config
    d, i = p.dims["dims"], p.inputs
    own = (spec.rank * d.block, (spec.rank + 1) * d.block)
    st: dict[str, Any] = {}

    def setup() -> None:
        for name, cols in (("recv", d.hidden), ("h", d.ffn), ("back", d.hidden)):
            st[name] = torch.empty((d.rows, cols), dtype=ctx.dtype, device=ctx.device)
        st["send"] = _symmetric(ctx, exchanged, ("moe-layer-send", d), (d.rows, d.hidden))
        st["y"] = _symmetric(ctx, exchanged, ("moe-layer-y", d), (d.rows, d.hidden))
        st["out"] = torch.empty((d.tokens, d.hidden), dtype=ctx.dtype, device=ctx.device)
        st["tables"] = moe.tile_tables(d, cfg.gemm.block_m, ctx.device)
        up = FusedKernel(moe.program_for(d, row.backend, row.order, cfg.gemm), moe.grouped_kernel(cfg.gemm),
                         context({"x_ptr": st["send"]}))
        back = _compiled(source_path("moe_combine.py"), "moe_combine_kernel", [combine_plan(d)],
                         row.backend, row.order)
        st["up"], st["combine"] = up, FusedKernel(back, moe_combine_kernel, context({"y_ptr": st["y"]}))

    def run() -> None:
        if exchanged:
            st["recv"].copy_(i["recv"])
        else:  # what a call pays: stage the tokens, and the rows a rank sends itself
            st["send"].copy_(i["send"])
            st["recv"][own[0]:own[1]].copy_(i["send"][own[0]:own[1]])
        moe.launch_grouped_gemm(st["up"], st["recv"], i["w1"], st["h"], st["tables"], cfg.gemm)
        moe.launch_grouped_gemm(moe.grouped_kernel(cfg.gemm), st["h"], i["w2"], st["y"], st["tables"], cfg.gemm)
        if exchanged:
            st["back"].copy_(i["back"])
        else:
            st["back"][own[0]:own[1]].copy_(st["y"][own[0]:own[1]])
        launch_combine(st["combine"], st["back"], i["idx"], i["gate"], st["out"], cfg)

    def poison_all() -> None:  # the runner barriers before and after: no peer reads the send buffers
        poison(st["recv"], st["h"], st["back"], st["out"], st["send"], st["y"])

    return Variant(row.name, run, lambda: st.get("out"), setup, poison_all, st.clear, FUSED, TRITON, OUT,
                   meta=row.meta)


def combine_plan(d: Any) -> Any:
    """The combine's all-to-all: every expert rank sends each source its block back."""
    from syncopate.ir.plans.templates import template  # imports sympy: compiling rows only

    return template("all-to-all", d.world, tensor="y_ptr", dim=0, splits=tuple(d.splits()))


# -- ulysses-attn -----------------------------------------------------------------

def _ulysses_problem(shape: Shape, p: dict[str, int], world: int, rank: int, device: torch.device,
                     dtype: torch.dtype, seed: int) -> LayerProblem:
    seq, heads, dim, hidden = p["seq"], p["heads"], p["head_dim"], p["hidden"]
    local, hl = seq // world, heads // world
    full = [torch.cat([randn((local, heads, dim), seed_of(seed, s, t), device, dtype) for s in range(world)])
            for t in range(3)]
    w_o = (randn((heads * dim, hidden), seed_of(seed, 0, 3), device, dtype) * (heads * dim) ** -0.5).to(dtype)
    rows = slice(rank * local, (rank + 1) * local)
    o = torch.empty((seq, heads, dim), dtype=torch.float32, device=device)  # the attention output, every head
    for h in range(heads):
        o[:, h] = _attention(full[0][:, h], full[1][:, h], full[2][:, h])
    o = _rounded(o, dtype)
    mine = slice(rank * hl, (rank + 1) * hl)
    inputs = {name: t[rows].contiguous() for name, t in zip("qkv", full)}
    inputs.update({f"{name}_heads": t[:, mine].contiguous() for name, t in zip("qkv", full)})
    inputs["w_o"] = w_o
    inputs["o_heads"] = o[:, mine].reshape(seq, hl * dim).to(dtype).contiguous()  # what this rank's attention sends back
    inputs["o_rows"] = o[rows].reshape(local, heads * dim).to(dtype).contiguous()  # what the way back delivers here
    refs = {OUT: o[rows].reshape(local, heads * dim) @ w_o.float(), FIRST: o[:, mine],
            GATHERED: o[rows].reshape(local, heads * dim)}
    return LayerProblem(ULYSSES_ATTN, {"seq": seq, "heads": heads, "dim": dim, "hidden": hidden, "world": world},
                        inputs, refs)


def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """fp32 ``softmax(q k^T / sqrt(D)) v`` of one head."""
    return torch.softmax((q.float() @ k.float().T) * q.shape[-1] ** -0.5, dim=-1) @ v.float()


def sequence_to_heads(x: torch.Tensor, world: int, out: torch.Tensor) -> None:
    """``out`` = the all-to-all send buffer of a rank's [S/W, H, D] rows: for
    each destination d, the rows for d's heads ([W * S/W, H/W, D])."""
    rows, heads, dim = x.shape
    out.view(world, rows, heads // world, dim).copy_(x.view(rows, world, heads // world, dim).transpose(0, 1))


def launch_mha(kernel: Any, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
               cfg: LayerConfig) -> None:
    seq, heads, dim = q.shape
    grid = (-(-seq // cfg.block_m), heads)
    kernel[grid](q, k, v, o, seq, dim ** -0.5, *q.stride(), *k.stride(), *v.stride(), *o.stride(), HEAD_DIM=dim,
                 **cfg.attn_options())


def _sdpa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """torch's attention on the [S, H, D] layout (grouped K/V heads)."""
    rep = q.shape[1] // k.shape[1]
    if rep > 1:
        # the flash and memory-efficient kernels take equal head counts:
        # enable_gqa=True sends SDPA to its math kernel (10x slower here)
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
    # [1, H, S, D]: the fused kernels take 4-D inputs only (3-D ones run the math kernel)
    q4, k4, v4 = (t.transpose(0, 1).unsqueeze(0) for t in (q, k, v))
    return torch.nn.functional.scaled_dot_product_attention(q4, k4, v4)[0].transpose(0, 1)


def _ulysses_baselines(spec: BenchSpec, ctx: BenchWorld) -> list[Variant]:
    from syncopate.bench.gemm import gemm_kernel, launch_gemm
    from syncopate.kernels.mha_fwd import mha_kernel

    p, cfg, group = spec.problem, spec.config, ctx.group
    m, i, w = p.dims, p.inputs, spec.world
    seq, hl, dim, local = m["seq"], m["heads"] // w, m["dim"], m["seq"] // w
    st: dict[str, Any] = {}

    def alloc() -> None:
        for name in ("q", "k", "v"):
            st[f"{name}_send"] = torch.empty((seq, hl, dim), dtype=ctx.dtype, device=ctx.device)
            st[f"{name}_recv"] = torch.empty((seq, hl, dim), dtype=ctx.dtype, device=ctx.device)
        st["o"] = torch.empty((seq, hl, dim), dtype=ctx.dtype, device=ctx.device)
        st["o_back"] = torch.empty((w, local, hl * dim), dtype=ctx.dtype, device=ctx.device)
        st["o_rows"] = torch.empty((local, w * hl * dim), dtype=ctx.dtype, device=ctx.device)
        st["out"] = torch.empty((local, m["hidden"]), dtype=ctx.dtype, device=ctx.device)

    def to_heads() -> None:
        for name in ("q", "k", "v"):
            sequence_to_heads(i[name], w, st[f"{name}_send"])
            comm.all_to_all_rows(st[f"{name}_recv"], st[f"{name}_send"], local, group)

    def back(o: torch.Tensor) -> None:  # heads to sequence: the rows of each rank go back, then side by side
        comm.all_to_all_rows(st["o_back"].view(seq, hl * dim), o.reshape(seq, hl * dim), local, group)
        st["o_rows"].view(local, w, hl * dim).copy_(st["o_back"].transpose(0, 1))

    def attn_torch(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
        st["o"] = _sdpa(q, k, v)

    def attn_triton(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
        launch_mha(mha_kernel, q, k, v, st["o"], cfg)

    def proj_torch(a: torch.Tensor) -> None:
        torch.matmul(a, i["w_o"], out=st["out"])

    def proj_triton(a: torch.Tensor) -> None:
        launch_gemm(gemm_kernel(cfg.gemm), a, i["w_o"], st["out"], cfg.gemm)

    def layer(attn: Callable[..., None], proj: Callable[[torch.Tensor], None]) -> Callable[[], None]:
        def run() -> None:
            to_heads()
            attn(st["q_recv"], st["k_recv"], st["v_recv"])
            back(st["o"])
            proj(st["o_rows"])
        return run

    def alone(attn: Callable[..., None], proj: Callable[[torch.Tensor], None]) -> Callable[[], None]:
        def run() -> None:
            attn(i["q_heads"], i["k_heads"], i["v_heads"])
            proj(i["o_rows"])
        return run

    def exchange() -> None:
        to_heads()
        back(i["o_heads"])

    return _rows(st, alloc, layer(attn_torch, proj_torch), layer(attn_triton, proj_triton),
                 alone(attn_torch, proj_torch), alone(attn_triton, proj_triton), exchange,
                 plain_out=lambda: st.get("out"), alone_out=_checked_first(spec, st, "out", "o"),
                 comm_out=lambda: st.get("o_rows"), no_fusion="torch has no fused all-to-all attention")


def ulysses_plans(seq: int, world: int) -> list[Any]:
    """Sequence to heads: an all-to-all of q, k and v each, ``seq / world`` rows per pair."""
    from syncopate.ir.plans.templates import template  # imports sympy: compiling rows only

    flat = (seq // world,) * (world * world)
    return [template("all-to-all", world, tensor=f"{t}_ptr", dim=0, size="SEQ", splits=flat, name=f"a2a{t}")
            for t in "qkv"]


def out_proj_plan(width: int, world: int) -> Any:
    """Heads to sequence, fused into the output projection: an all-to-all of ``a``'s columns."""
    from syncopate.ir.plans.templates import template  # imports sympy: compiling rows only

    return template("all-to-all", world, tensor="a_ptr", dim=1, size="K", splits=(width,) * (world * world))


def _ulysses_fused(spec: BenchSpec, ctx: BenchWorld, row: FusedOptions, context: Callable[..., Any],
                   exchanged: bool = False) -> Variant:
    """Sequence to heads fused into the attention kernel (q, k, v each an
    all-to-all), heads to sequence fused into the output projection."""
    from syncopate.bench.gemm import gemm_kernel, launch_gemm
    from syncopate.kernels.mha_fwd import mha_kernel
    from syncopate.runtime.fused import FusedKernel

    p, cfg, w, r = spec.problem, spec.config, spec.world, spec.rank
    m, i = p.dims, p.inputs
    seq, hl, dim, local = m["seq"], m["heads"] // w, m["dim"], m["seq"] // w
    width = hl * dim
    st: dict[str, Any] = {}

    def setup() -> None:
        for name in ("q", "k", "v"):
            st[f"{name}_send"] = _symmetric(ctx, exchanged, ("ulysses-send", name, seq, hl, dim), (seq, hl, dim))
            st[f"{name}_recv"] = torch.empty((seq, hl, dim), dtype=ctx.dtype, device=ctx.device)
        st["o"] = torch.empty((seq, hl, dim), dtype=ctx.dtype, device=ctx.device)
        st["o_send"] = _symmetric(ctx, exchanged, ("ulysses-o-send", seq, width), (local, w * width))
        st["o_rows"] = torch.empty((local, w * width), dtype=ctx.dtype, device=ctx.device)
        st["out"] = torch.empty((local, m["hidden"]), dtype=ctx.dtype, device=ctx.device)
        attn = _compiled(source_path("mha_fwd.py"), "mha_kernel", ulysses_plans(seq, w), row.backend, row.order,
                         hoist=True)
        proj = _compiled(source_path("gemm_bf16.py"), "gemm_kernel", [out_proj_plan(width, w)], row.backend,
                         row.order)
        st["attn"] = FusedKernel(attn, mha_kernel, context({f"{n}_ptr": st[f"{n}_send"] for n in "qkv"}))
        st["proj"] = FusedKernel(proj, gemm_kernel(cfg.gemm), context({"a_ptr": st["o_send"]}))

    def run() -> None:
        own = slice(r * local, (r + 1) * local)
        for name in ("q", "k", "v"):
            if exchanged:
                st[f"{name}_recv"].copy_(i[f"{name}_heads"])
            else:  # what a call pays: the send buffer's layout, and the rows a rank sends itself
                sequence_to_heads(i[name], w, st[f"{name}_send"])
                st[f"{name}_recv"][own].copy_(st[f"{name}_send"][own])
        launch_mha(st["attn"], st["q_recv"], st["k_recv"], st["v_recv"], st["o"], cfg)
        cols = slice(r * width, (r + 1) * width)
        if exchanged:
            st["o_rows"].copy_(i["o_rows"])
        else:  # the way back's send buffer: column block d holds the rows of d's sequence shard
            st["o_send"].view(local, w, width).copy_(st["o"].view(w, local, width).transpose(0, 1))
            st["o_rows"][:, cols].copy_(st["o_send"][:, cols])
        launch_gemm(st["proj"], st["o_rows"], i["w_o"], st["out"], cfg.gemm)

    def poison_all() -> None:
        poison(*(st[f"{n}_{b}"] for n in "qkv" for b in ("send", "recv")), st["o"], st["o_send"], st["o_rows"],
               st["out"])

    return Variant(row.name, run, lambda: st.get("out"), setup, poison_all, st.clear, FUSED, TRITON, OUT,
                   meta=row.meta)


# -- ring-attn --------------------------------------------------------------------

def _ring_problem(shape: Shape, p: dict[str, int], world: int, rank: int, device: torch.device, dtype: torch.dtype,
                  seed: int) -> LayerProblem:
    seq, heads, kv_heads, dim = p["seq"], p["heads"], p["kv_heads"], p["head_dim"]
    local = seq // world
    q = randn((local, heads, dim), seed_of(seed, rank, 0), device, dtype)
    k_full = torch.cat([randn((local, kv_heads, dim), seed_of(seed, s, 1), device, dtype) for s in range(world)])
    v_full = torch.cat([randn((local, kv_heads, dim), seed_of(seed, s, 2), device, dtype) for s in range(world)])
    group = heads // kv_heads
    o = torch.empty((local, heads, dim), dtype=torch.float32, device=device)
    for h in range(heads):
        o[:, h] = _attention(q[:, h], k_full[:, h // group], v_full[:, h // group])
    rows = slice(rank * local, (rank + 1) * local)
    inputs = {"q": q, "k": k_full[rows].contiguous(), "v": v_full[rows].contiguous(), "k_full": k_full,
              "v_full": v_full}
    return LayerProblem(RING_ATTN, {"seq": seq, "world": world}, inputs,
                        {OUT: o, GATHERED: torch.stack([k_full, v_full]).float()})


def launch_ring(kernel: Any, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor, first: int,
                shards: int, cfg: LayerConfig) -> None:
    s_q, heads, dim = q.shape
    grid = (-(-s_q // cfg.block_m), heads)
    kernel[grid](q, k, v, o, s_q, k.shape[0], first, shards, dim ** -0.5, *q.stride(), *k.stride(), *v.stride(),
                 *o.stride(), GROUP=heads // k.shape[1], HEAD_DIM=dim, **cfg.attn_options())


def _ring_baselines(spec: BenchSpec, ctx: BenchWorld) -> list[Variant]:
    from syncopate.kernels.ring_attn import ring_attn_kernel

    p, cfg, group = spec.problem, spec.config, ctx.group
    i = p.inputs
    st: dict[str, Any] = {}

    def alloc() -> None:
        st["kv"] = torch.empty((2, *i["k_full"].shape), dtype=ctx.dtype, device=ctx.device)
        st["o"] = torch.empty(i["q"].shape, dtype=ctx.dtype, device=ctx.device)

    def gather() -> None:
        comm.all_gather_rows(st["kv"][0], i["k"], group)
        comm.all_gather_rows(st["kv"][1], i["v"], group)

    def attn_torch(k: torch.Tensor, v: torch.Tensor) -> None:
        st["o"] = _sdpa(i["q"], k, v)

    def attn_triton(k: torch.Tensor, v: torch.Tensor) -> None:
        launch_ring(ring_attn_kernel, i["q"], k, v, st["o"], spec.rank, spec.world, cfg)

    def layer(attn: Callable[..., None]) -> Callable[[], None]:
        def run() -> None:
            gather()
            attn(st["kv"][0], st["kv"][1])
        return run

    return _rows(st, alloc, layer(attn_torch), layer(attn_triton), lambda: attn_torch(i["k_full"], i["v_full"]),
                 lambda: attn_triton(i["k_full"], i["v_full"]), gather, plain_out=lambda: st.get("o"),
                 alone_out=lambda: st.get("o"), comm_out=lambda: st.get("kv"),
                 no_fusion="torch has no fused ring-exchange attention (its context parallelism is eager "
                           "all-gather or send/recv rounds with a merge per round, not a fused kernel)")


def ring_plans(world: int) -> list[Any]:
    """K and V passed round the ring."""
    from syncopate.ir.plans.templates import template  # imports sympy: compiling rows only

    return [template("ring-exchange", world, tensor=f"{t}_ptr", dim=0, size="N_KV", name=f"rx{t}") for t in "kv"]


def _ring_fused(spec: BenchSpec, ctx: BenchWorld, row: FusedOptions, context: Callable[..., Any],
                exchanged: bool = False) -> Variant:
    """K and V delivered by the ring into symmetric buffers of the whole
    sequence; the kernel walks them in ring order, a wait per K/V block."""
    from syncopate.kernels.ring_attn import ring_attn_kernel
    from syncopate.runtime.fused import FusedKernel

    p, cfg = spec.problem, spec.config
    i = p.inputs
    local = p.dims["seq"] // spec.world
    own = slice(spec.rank * local, (spec.rank + 1) * local)
    st: dict[str, Any] = {}

    def setup() -> None:
        shape = tuple(i["k_full"].shape)
        st["k"], st["v"] = (_symmetric(ctx, exchanged, ("ring-kv", name, shape), shape) for name in "kv")
        st["o"] = torch.empty(i["q"].shape, dtype=ctx.dtype, device=ctx.device)
        program = _compiled(source_path("ring_attn.py"), "ring_attn_kernel", ring_plans(spec.world), row.backend,
                            row.order)
        st["kernel"] = FusedKernel(program, ring_attn_kernel, context({}))

    def run() -> None:  # what a call pays: stage this rank's K/V rows where the ring reads them
        if exchanged:
            st["k"].copy_(i["k_full"])
            st["v"].copy_(i["v_full"])
        else:
            st["k"][own].copy_(i["k"])
            st["v"][own].copy_(i["v"])
        launch_ring(st["kernel"], i["q"], st["k"], st["v"], st["o"], spec.rank, spec.world, cfg)

    def poison_all() -> None:
        poison(st["k"], st["v"], st["o"])

    return Variant(row.name, run, lambda: st.get("o"), setup, poison_all, st.clear, FUSED, TRITON, OUT,
                   meta=row.meta)


# -- shared -----------------------------------------------------------------------

def _rows(st: dict[str, Any], alloc: Callable[[], None], seq_torch: Callable[[], None],
          seq_triton: Callable[[], None], alone_torch: Callable[[], None], alone_triton: Callable[[], None],
          exchange: Callable[[], None], plain_out: Callable[[], Any], alone_out: Callable[[], Any],
          comm_out: Callable[[], Any], no_fusion: str) -> list[Variant]:
    """The baseline rows of one workload (one state dict: the runner's
    setup of a row replaces the previous row's buffers)."""

    def poison_all() -> None:
        poison(*(t for t in st.values() if isinstance(t, torch.Tensor)))

    return [
        Variant(SEQ_CUBLAS, seq_torch, plain_out, alloc, poison_all, st.clear, BASELINE, CUBLAS, OUT),
        unavailable(ASYNC_TP, no_fusion, BASELINE, CUBLAS),
        Variant(SEQ_TRITON, seq_triton, plain_out, alloc, poison_all, st.clear, BASELINE, TRITON, OUT),
        Variant(CUBLAS_ALONE, alone_torch, alone_out, alloc, poison_all, st.clear, ALONE, None, OUT),
        Variant(TRITON_ALONE, alone_triton, alone_out, alloc, poison_all, st.clear, ALONE, None, OUT),
        Variant(COMM_ALONE, exchange, comm_out, alloc, poison_all, st.clear, ALONE, None, GATHERED),
    ]


def _checked_first(spec: BenchSpec, st: dict[str, Any], out: str, first: str) -> Callable[[], Any]:
    """An alone row's result: ``st[out]``, or NaN when its first stage's own
    output ``st[first]`` fails the check against the FIRST reference."""
    def result() -> Any:
        got = st.get(out)
        stage = st.get(first)
        if got is None or stage is None:
            return got
        if not check_result(stage, spec.problem.references[FIRST]).ok:
            return torch.full_like(got, float("nan"))
        return got
    return result


def _symmetric(ctx: BenchWorld, exchanged: bool, key: tuple, shape: tuple[int, ...]) -> torch.Tensor:
    """A buffer peers read (symmetric on GPUs); a plain one where nothing is exchanged."""
    if exchanged:
        return torch.empty(shape, dtype=ctx.dtype, device=ctx.device)
    return ctx.shared_symmetric(key + (ctx.dtype,), shape, ctx.dtype)


_PROGRAMS: dict[tuple, Any] = {}


def _compiled(path: str, kernel: str, plans: Sequence[Any], backend: str, order: str, hoist: bool = False) -> Any:
    """The FusedProgram of ``kernel`` with ``plans`` (typed template
    options; cached per process)."""
    key = (path, kernel, tuple(plans), backend, order, hoist)
    if key not in _PROGRAMS:
        from syncopate.runtime.fused import compile_fused

        _PROGRAMS[key] = compile_fused(path, kernel, list(plans), overlap_pass(backend, order, hoist_loops=hoist))
    return _PROGRAMS[key]


BASELINES = {MOE_LAYER: _moe_baselines, ULYSSES_ATTN: _ulysses_baselines, RING_ATTN: _ring_baselines}
FUSED_ROWS = {MOE_LAYER: _moe_fused, ULYSSES_ATTN: _ulysses_fused, RING_ATTN: _ring_fused}


def baseline_variants(spec: BenchSpec, ctx: BenchWorld) -> list[Variant]:
    return BASELINES[spec.workload](spec, ctx)


NCCL_SPIN = ("not run: tiles spin on chunks (attention waits for every K/V chunk of its loop, the MoE kernels "
             "find rows through loaded tables), so on a full grid they would starve NCCL's kernels of SMs")


def fused_variants(spec: BenchSpec, ctx: BenchWorld, rows: Sequence[FusedOptions]) -> list[Variant]:
    """The syncopate rows of ``spec``: one per option set, n/a where the row does not apply."""
    out = []
    for row in rows:
        why = ("needs CUDA" if ctx.cpu else NCCL_SPIN if row.backend == "nccl"
               else "not run: plans of one chunk per (source, destination) or shard" if row.chunks > 1
               else "not run: the GEMM tile rows are for the GEMM workloads" if row.tile
               else "not run: no reduction to place" if row.reduce != "stream"
               else "not run: no all-gather input to write in place" if row.direct else None)
        if why:
            out.append(unavailable(row.name, why, **row.meta))
        else:
            out.append(FUSED_ROWS[spec.workload](spec, ctx, row, lambda sources, lanes=row.lanes:
                                                 ctx.gpu.context(sources=sources or None, ce_lanes=lanes)))
    return out


def no_comm_variant(spec: BenchSpec, ctx: BenchWorld, name: str) -> Variant:
    """The fused kernels (ce/arrival) with every chunk in place: what fusion costs without communication."""
    from syncopate.runtime.local import LocalRank

    row = FusedOptions("ce", "arrival")
    v = FUSED_ROWS[spec.workload](spec, ctx, row, lambda sources: LocalRank(None if ctx.cpu else ctx.device,
                                                                             spec.rank), exchanged=True)
    v.name, v.group, v.compute, v.meta = name, ALONE, None, {"backend": "ce", "order": "arrival", "chunks": 1}
    return v
