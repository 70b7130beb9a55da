"""The "syncopate no-comm" row: the fused kernel with all its chunks already in place.

The issue's requirement "a fused kernel with no communication must run as
fast as the local kernel", measured: the ce/arrival program of the shape
(the same waits, signals and tile order as the fused rows) launched through
``runtime.local.LocalRank``, which raises every flag before the first launch
and moves nothing, on complete inputs (the whole gathered A, the received
rows). Its result is the local GEMM's, checked like every row; its time
against "Triton alone" is what the passes cost by themselves (the summary
prints the ratio per shape). An ``ALONE`` row: no bound, no efficiency.
"""

from __future__ import annotations

from typing import Any

import torch

from syncopate.bench.check import poison
from syncopate.bench.context import BenchWorld
from syncopate.bench.gemm import gemm_kernel, launch_gemm
from syncopate.bench.problem import OUT, PAPER_LAYERS, PARTIAL, BenchSpec
from syncopate.bench.shapes import A2A_GEMM, AG_GEMM, GEMM_AR, GEMM_RS, REDUCED
from syncopate.bench.variants import ALONE, NO_COMM, Variant, unavailable

BACKEND, ORDER = "ce", "arrival"  # the default pipeline's rows
WORKLOADS = (AG_GEMM, GEMM_RS, GEMM_AR, A2A_GEMM)


def no_comm_variant(spec: BenchSpec, ctx: BenchWorld) -> Variant:
    """The no-comm row of ``spec`` (n/a for workloads without one)."""
    meta = {"backend": BACKEND, "order": ORDER, "chunks": 1}
    if spec.workload in PAPER_LAYERS and spec.problem is not None:
        from syncopate.bench import paper_layers

        return paper_layers.no_comm_variant(spec, ctx, NO_COMM)
    if spec.workload not in WORKLOADS or spec.problem is None:
        return unavailable(NO_COMM, f"no fused kernel without communication for {spec.workload}", ALONE, None, **meta)
    st: dict[str, Any] = {}
    launch = _moe_launch if spec.workload == A2A_GEMM else _gemm_launch

    def setup() -> None:
        from syncopate.runtime.local import LocalRank

        st["run"], st["out"] = launch(spec, LocalRank(ctx.device if not ctx.cpu else None, spec.rank))

    return Variant(NO_COMM, lambda: st["run"](), lambda: st.get("out"), setup, lambda: poison(st["out"]), st.clear,
                   ALONE, None, PARTIAL if spec.workload in REDUCED else OUT, meta=meta)


def _gemm_launch(spec: BenchSpec, context: Any) -> tuple[Any, torch.Tensor]:
    from syncopate.bench.fused import plan_dim, program_for
    from syncopate.runtime.fused import FusedKernel

    p, cfg = spec.problem, spec.config
    assert p is not None
    program = program_for(spec.workload, spec.world, BACKEND, ORDER, cfg, dim=plan_dim(spec.workload, spec.shape.M,
                                                                                         spec.world))
    kernel = FusedKernel(program, gemm_kernel(cfg), context)
    a = p.a_full if spec.workload == AG_GEMM else p.a
    out = torch.empty((a.shape[0], p.b.shape[1]), dtype=a.dtype, device=a.device)
    return (lambda: launch_gemm(kernel, a, p.b, out, cfg)), out


def _moe_launch(spec: BenchSpec, context: Any) -> tuple[Any, torch.Tensor]:
    from syncopate.bench import moe
    from syncopate.runtime.fused import FusedKernel

    p, cfg = spec.problem, spec.config
    assert isinstance(p, moe.MoeProblem)
    d = p.dims
    kernel = FusedKernel(moe.program_for(d, BACKEND, ORDER, cfg), moe.grouped_kernel(cfg), context)
    out = torch.empty((d.rows, d.ffn), dtype=p.recv.dtype, device=p.recv.device)
    tables = moe.tile_tables(d, cfg.block_m, p.recv.device)
    return (lambda: moe.launch_grouped_gemm(kernel, p.recv, p.w, out, tables, cfg)), out
