"""``overlap-bench --workload tp-layer``: a Llama-3-70B-shaped decoder layer,
tensor parallel with sequence parallelism, three ways.

The layer (tokens sharded over the ranks between the blocks)::

    RMSNorm -> all-gather -> QKV -> causal SDPA (GQA) -> out proj -> reduce-scatter (+ residual)
    RMSNorm -> all-gather -> gate/up -> SwiGLU -> down -> reduce-scatter (+ residual)

Shapes: hidden 8192, 64 query heads and 8 KV heads of 128, FFN 28672, bf16,
4096 and 8192 tokens (``--quick``: 4096 only); with ``--cpu``: hidden 64,
4 query and 2 KV heads of 16, FFN 128, fp32, 32 and 64 tokens. Each rank
holds its own weight shards (seeded per rank: the rows compare with each
other, not with an unsharded model).

Rows, each in forward and forward + backward:

* ``torch TP``: functional collectives (``all_gather_tensor_autograd``,
  ``reduce_scatter_tensor_autograd``, NCCL) and ``torch.matmul`` (cuBLAS);
  the reference the other rows are checked against;
* ``async-TP``: the same layer under ``torch.compile`` with Inductor's
  micro-pipeline TP pass (``_micro_pipeline_tp``), which rewrites the
  all-gather -> matmul and matmul -> reduce-scatter pairs into PyTorch's
  ``symm_mem`` fused ops (GPU only);
* ``syncopate ops``: ``syncopate.ops.all_gather_matmul`` /
  ``matmul_reduce_scatter`` (fused on GPUs, unfused with ``--cpu``).

Before timing, every row's output (and in forward + backward the gradients
of the input and of every weight) is compared with the torch TP row; a row
that differs is reported as MISMATCH and not timed. Timing: CUDA events
(host clock on CPU), the median of the timed iterations after warm-up.
"""

from __future__ import annotations

import functools
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F

GPU_TOKENS = (4096, 8192)
CPU_TOKENS = (32, 64)


@dataclass(frozen=True)
class LayerShape:
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int


LLAMA3_70B = LayerShape(8192, 64, 8, 128, 28672)
TINY = LayerShape(64, 4, 2, 16, 128)

WEIGHTS = ("wq", "wk", "wv", "wo", "wg", "wu", "wd", "norm1", "norm2")


def make_weights(shape: LayerShape, world: int, rank: int, dtype: torch.dtype, device: torch.device,
                 seed: int) -> dict[str, torch.Tensor]:
    """This rank's shards, stored [in, out]: QKV/gate/up by output features,
    out/down by input features; the norms' scales replicated."""
    if shape.heads % world or shape.kv_heads % world or shape.ffn % world:
        raise ValueError(f"tp-layer: heads {shape.heads}, KV heads {shape.kv_heads} and FFN {shape.ffn} "
                         f"must divide by the world size {world}")
    g = torch.Generator(device="cpu").manual_seed(seed * 1000 + rank)
    h, q, kv, f = shape.hidden, shape.heads * shape.head_dim // world, shape.kv_heads * shape.head_dim // world, \
        shape.ffn // world

    def w(rows: int, cols: int) -> torch.Tensor:
        return (torch.randn(rows, cols, generator=g) / rows ** 0.5).to(device=device, dtype=dtype)

    norm = torch.Generator(device="cpu").manual_seed(seed)  # replicated: the same on every rank
    return {"wq": w(h, q), "wk": w(h, kv), "wv": w(h, kv), "wo": w(q, h), "wg": w(h, f), "wu": w(h, f),
            "wd": w(f, h),
            "norm1": (1 + 0.1 * torch.randn(h, generator=norm)).to(device=device, dtype=dtype),
            "norm2": (1 + 0.1 * torch.randn(h, generator=norm)).to(device=device, dtype=dtype)}


def rms_norm(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    var = x.float().pow(2).mean(-1, keepdim=True)
    return (x.float() * torch.rsqrt(var + 1e-5)).to(x.dtype) * scale


AgMm = Callable[[torch.Tensor, list[torch.Tensor]], list[torch.Tensor]]
MmRs = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def layer(x: torch.Tensor, w: dict[str, torch.Tensor], shape: LayerShape, world: int, ag_mm: AgMm,
          mm_rs: MmRs) -> torch.Tensor:
    """One decoder layer on this rank's tokens ``x`` [T/W, hidden]."""
    q, k, v = ag_mm(rms_norm(x, w["norm1"]), [w["wq"], w["wk"], w["wv"]])
    tokens, d = q.shape[0], shape.head_dim
    heads, kv_heads = shape.heads // world, shape.kv_heads // world
    q = q.view(1, tokens, heads, d).transpose(1, 2)
    k = k.view(1, tokens, kv_heads, d).transpose(1, 2).repeat_interleave(heads // kv_heads, dim=1)
    v = v.view(1, tokens, kv_heads, d).transpose(1, 2).repeat_interleave(heads // kv_heads, dim=1)
    attn = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(tokens, heads * d)
    x = x + mm_rs(attn, w["wo"])
    gate, up = ag_mm(rms_norm(x, w["norm2"]), [w["wg"], w["wu"]])
    return x + mm_rs(F.silu(gate) * up, w["wd"])


def torch_tp(group_name: str, world: int, nccl: bool) -> tuple[AgMm, MmRs]:
    """Functional collectives (differentiable) + torch.matmul."""
    import torch.distributed._functional_collectives as funcol

    def ag_mm(x: torch.Tensor, Bs: list[torch.Tensor]) -> list[torch.Tensor]:
        full = funcol.all_gather_tensor_autograd(x, 0, group_name)
        return [full @ B for B in Bs]

    def mm_rs(x: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        y = x @ B
        if nccl:
            return funcol.reduce_scatter_tensor_autograd(y, "sum", 0, group_name)
        return _AllReduceRows.apply(y, group_name)  # gloo has no reduce-scatter

    return ag_mm, mm_rs


class _AllReduceRows(torch.autograd.Function):
    """Reduce-scatter of rows as an all-reduce and this rank's slice (gloo); backward: all-gather."""

    @staticmethod
    def forward(ctx: Any, y: torch.Tensor, group_name: str) -> torch.Tensor:
        from syncopate.pytorch.unfused_ops import reduce_scatter

        ctx.group_name = group_name
        return reduce_scatter(y, 0, group_name)

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, None]:
        from syncopate.pytorch.unfused_ops import all_gather

        return all_gather(g, 0, ctx.group_name), None


def syncopate_ops(group_name: str) -> tuple[AgMm, MmRs]:
    from syncopate import ops

    def ag_mm(x: torch.Tensor, Bs: list[torch.Tensor]) -> list[torch.Tensor]:
        # with a backward ahead, keep the gathered input for the weights' gradients, as torch TP's autograd
        # keeps it (SyncopateColwiseParallel's keep_gathered): gathering it again there costs a collective
        keep = torch.is_grad_enabled() and any(B.requires_grad for B in Bs)
        return ops.all_gather_matmul(x, Bs, 0, group_name, return_A=keep)[1]

    def mm_rs(x: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return ops.matmul_reduce_scatter(x, B, "sum", 0, group_name)

    return ag_mm, mm_rs


@dataclass
class Row:
    name: str
    tokens: int
    mode: str  # "fwd" or "fwd+bwd"
    ms: float | None = None
    note: str = ""


def _step(fn: Callable[..., torch.Tensor], x: torch.Tensor, w: dict[str, torch.Tensor], backward: bool,
          grad: torch.Tensor | None) -> tuple[torch.Tensor, list[torch.Tensor]]:
    if not backward:
        with torch.no_grad():
            return fn(x, w), []
    xs = x.detach().requires_grad_()
    ws = {k: v.detach().requires_grad_() for k, v in w.items()}
    out = fn(xs, ws)
    out.backward(grad)
    return out.detach(), [xs.grad] + [ws[k].grad for k in WEIGHTS]


def _mismatch(got: tuple[torch.Tensor, list[torch.Tensor]], ref: tuple[torch.Tensor, list[torch.Tensor]],
              tol: float) -> str | None:
    names = ["output", "grad x"] + [f"grad {k}" for k in WEIGHTS]
    for name, a, b in zip(names, [got[0], *got[1]], [ref[0], *ref[1]]):
        err = (a.float() - b.float()).abs().max().item() / max(b.float().abs().max().item(), 1e-6)
        if not err <= tol:
            return f"{name} differs from torch TP by {err:.2e} (relative to its largest entry; tolerance {tol})"
    return None


def _time(run: Callable[[], Any], cuda: bool, warmup: int, iters: int) -> float:
    for _ in range(warmup):
        run()
    times = []
    for _ in range(iters):
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            run()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t0 = time.perf_counter()
            run()
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _setup(cpu: bool) -> tuple[int, int, torch.device, Any, bool]:
    import torch.distributed as dist

    if not dist.is_initialized():
        if "RANK" in os.environ:
            device = None
            if not cpu:
                local = int(os.environ.get("LOCAL_RANK", "0"))
                torch.cuda.set_device(local)
                device = torch.device("cuda", local)
            dist.init_process_group("gloo" if cpu else "nccl", device_id=device)
        else:
            if not cpu:
                raise RuntimeError("GPU runs start one process per GPU: torchrun --nproc-per-node=W overlap-bench "
                                   "--workload tp-layer (or add --cpu)")
            dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    device = torch.device("cpu") if cpu else torch.device("cuda", torch.cuda.current_device())
    group = dist.group.WORLD
    return dist.get_rank(), dist.get_world_size(), device, group, "nccl" in str(dist.get_backend(group))


def run(cpu: bool, quick: bool, warmup: int, iters: int, seed: int, dtype_name: str = "bfloat16") -> list[Row]:
    """Check and time every row; returns the rows (every rank). ``dtype_name``:
    the GPU rows' element type (torch's name); CPU rows run fp32."""
    rank, world, device, group, nccl = _setup(cpu)
    shape, dtype, tol = (TINY, torch.float32, 1e-4) if cpu else (LLAMA3_70B, getattr(torch, dtype_name), 5e-2)
    tokens_list = CPU_TOKENS if cpu else GPU_TOKENS[:1] if quick else GPU_TOKENS
    name = group.group_name
    rows: list[Row] = []
    candidates: list[tuple[str, Callable[..., torch.Tensor] | str]] = []
    ref_ag, ref_rs = torch_tp(name, world, nccl)
    def reference(x, w):
        return layer(x, w, shape, world, ref_ag, ref_rs)

    candidates.append(("torch TP", reference))
    candidates.append(("async-TP", _async_tp(reference, name, cpu)))
    s_ag, s_rs = syncopate_ops(name)
    candidates.append(("syncopate ops", lambda x, w: layer(x, w, shape, world, s_ag, s_rs)))
    w = make_weights(shape, world, rank, dtype, device, seed)
    for tokens in tokens_list:
        if tokens % world:
            raise ValueError(f"tp-layer: {tokens} tokens do not divide by the world size {world}")
        g = torch.Generator(device="cpu").manual_seed(seed * 7919 + rank)
        x = torch.randn(tokens // world, shape.hidden, generator=g).to(device=device, dtype=dtype)
        grad = torch.randn(tokens // world, shape.hidden, generator=g).to(device=device, dtype=dtype)
        for backward in (False, True):
            mode = "fwd+bwd" if backward else "fwd"
            ref = _step(reference, x, w, backward, grad)
            for label, fn in candidates:
                row = Row(label, tokens, mode)
                rows.append(row)
                if isinstance(fn, str):
                    row.note = fn
                    continue
                try:
                    got = _step(fn, x, w, backward, grad)
                except Exception as err:  # one broken row must not take the others down
                    row.note = f"n/a: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
                    continue
                bad = _mismatch(got, ref, tol)
                if bad:
                    row.note = f"MISMATCH: {bad}"
                    continue
                row.ms = _time(functools.partial(_step, fn, x, w, backward, grad), device.type == "cuda", warmup, iters)
    return rows


def _async_tp(reference: Callable[..., torch.Tensor], group_name: str, cpu: bool) -> Callable[..., torch.Tensor] | str:
    """The layer under torch.compile with Inductor's micro-pipeline TP (GPU only)."""
    if cpu:
        return "n/a: async-TP's symm_mem kernels need CUDA"
    import torch._inductor.config as inductor_config
    from torch.distributed._symmetric_memory import enable_symm_mem_for_group

    enable_symm_mem_for_group(group_name)
    inductor_config._micro_pipeline_tp = True
    return torch.compile(reference, fullgraph=True)


def describe(cpu: bool, quick: bool) -> str:
    """The shapes a run measures (``--list-shapes``)."""
    shape = TINY if cpu else LLAMA3_70B
    tokens = CPU_TOKENS if cpu else GPU_TOKENS[:1] if quick else GPU_TOKENS
    return (f"tp-layer: hidden {shape.hidden}, {shape.heads} query / {shape.kv_heads} KV heads of {shape.head_dim}, "
            f"FFN {shape.ffn}; tokens {', '.join(map(str, tokens))}; forward and forward+backward")


def format_rows(rows: list[Row], world: int, device: str) -> str:
    lines = [f"tp-layer (Llama-3-70B-shaped decoder layer, SP+TP) W={world} on {device}",
             f"{'row':<16}{'tokens':>8}  {'mode':<8}{'ms':>10}{'vs torch TP':>13}  note"]
    base = {(r.tokens, r.mode): r.ms for r in rows if r.name == "torch TP"}
    for r in rows:
        ms = f"{r.ms:.3f}" if r.ms is not None else "-"
        ref = base.get((r.tokens, r.mode))
        speed = f"{ref / r.ms:.2f}x" if r.ms and ref else "-"
        lines.append(f"{r.name:<16}{r.tokens:>8}  {r.mode:<8}{ms:>10}{speed:>13}  {r.note}")
    return "\n".join(lines)


def main(cpu: bool, quick: bool, warmup: int, iters: int, seed: int, dtype_name: str = "bfloat16") -> int:
    """Run and print (rank 0); exit status 1 if a row mismatched."""
    import torch.distributed as dist

    try:
        rows = run(cpu, quick, warmup, iters, seed, dtype_name)
    except (RuntimeError, ValueError) as err:
        print(f"overlap-bench: error: {err}", file=sys.stderr)
        return 2
    if dist.get_rank() == 0:
        device = "cpu" if cpu else torch.cuda.get_device_name()
        print(format_rows(rows, dist.get_world_size(), device), flush=True)
    return 1 if any(r.note.startswith("MISMATCH") for r in rows) else 0
