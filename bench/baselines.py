"""The non-syncopate rows of a table (ag-attn's are in :mod:`syncopate.bench.attention`,
a2a-gemm's in :mod:`syncopate.bench.moe`).

For ag-gemm (see :mod:`syncopate.bench.shapes` for the layouts):

``cuBLAS+NCCL``   all_gather_into_tensor(A), then torch.matmul
``async-TP``      torch.ops.symm_mem.fused_all_gather_matmul(a_shard, [b], gather_dim=0, group_name=...)
``Triton+NCCL``   all_gather_into_tensor(A), then the local Triton GEMM
``cuBLAS alone``  torch.matmul of the (already gathered) M x K A
``Triton alone``  the local Triton GEMM on the gathered A
``NCCL alone``    all_gather_into_tensor(A)

For gemm-rs the same rows with the GEMM of the rank's partial (M x N) first
and reduce_scatter_tensor after; async-TP is
``torch.ops.symm_mem.fused_matmul_reduce_scatter(a, b, "sum", scatter_dim=0, group_name=...)``;
``NCCL alone`` reduce-scatters a precomputed bf16 partial.

Every output we allocate is poisoned (NaN) before the check run; outputs a
library allocates itself (torch.matmul without ``out=``, async-TP) are
checked as returned, after leaving a NaN block of their size in the caching
allocator (:func:`poison_allocator`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from syncopate.bench import comm
from syncopate.bench.check import poison, poison_allocator
from syncopate.bench.context import BenchWorld
from syncopate.bench.gemm import gemm_kernel, launch_gemm
from syncopate.bench.problem import GATHERED, OUT, PARTIAL, BenchSpec
from syncopate.bench.shapes import A2A_GEMM, AG_ATTN, AG_GEMM, GEMM_RS
from syncopate.bench.variants import (
    ALONE,
    ASYNC_TP,
    BASELINE,
    COMM_ALONE,
    CUBLAS,
    CUBLAS_ALONE,
    SEQ_CUBLAS,
    SEQ_TRITON,
    TRITON,
    TRITON_ALONE,
    Variant,
    one_state_per_row,
    unavailable,
)

ROWS: tuple[tuple[str, str, str | None], ...] = (
    (SEQ_CUBLAS, BASELINE, CUBLAS),
    (ASYNC_TP, BASELINE, CUBLAS),
    (SEQ_TRITON, BASELINE, TRITON),
    (CUBLAS_ALONE, ALONE, None),
    (TRITON_ALONE, ALONE, None),
    (COMM_ALONE, ALONE, None),
)


def baseline_variants(spec: BenchSpec, ctx: BenchWorld) -> list[Variant]:
    """The six baseline rows of ``spec`` (n/a rows for workloads without a
    kernel), each with buffers of its own (``one_state_per_row``)."""
    build = _builder(spec.workload)
    if build is None:
        reason = f"no bf16 benchmark kernel for {spec.workload} in overlap-bench yet"
        return [unavailable(name, reason, group, compute) for name, group, compute in ROWS]
    return one_state_per_row(lambda: build(spec, ctx))


def _builder(workload: str) -> Callable[[BenchSpec, BenchWorld], list[Variant]] | None:
    if workload == AG_GEMM:
        return _ag_gemm
    if workload == GEMM_RS:
        return _gemm_rs
    if workload == AG_ATTN:
        from syncopate.bench import attention

        return attention.baseline_variants
    if workload == A2A_GEMM:
        from syncopate.bench import moe

        return moe.baseline_variants
    return None


def _empty(shape: tuple[int, int], ctx: BenchWorld) -> torch.Tensor:
    return torch.empty(shape, dtype=ctx.dtype, device=ctx.device)


def _ag_gemm(spec: BenchSpec, ctx: BenchWorld) -> list[Variant]:
    p, d, cfg, group = spec.problem, spec.dims, spec.config, ctx.group
    assert p is not None and d.gathered is not None
    st: dict[str, Any] = {}
    kernel = gemm_kernel(cfg)

    def alloc(*names: str) -> None:
        for name in names:
            st[name] = _empty(d.gathered if name == "gathered" else d.c, ctx)

    def seq_cublas() -> None:
        comm.all_gather_rows(st["gathered"], p.a, group)
        torch.matmul(st["gathered"], p.b, out=st["c"])

    def seq_triton() -> None:
        comm.all_gather_rows(st["gathered"], p.a, group)
        launch_gemm(kernel, st["gathered"], p.b, st["c"], cfg)

    def async_tp_setup() -> None:
        if ctx.cpu:
            raise RuntimeError("needs CUDA")
        comm.enable_symmetric_memory(ctx.group_name)

    def async_tp() -> None:
        _, outs = torch.ops.symm_mem.fused_all_gather_matmul(p.a, [p.b], gather_dim=0, group_name=ctx.group_name)
        st["c"] = outs[0]

    def cublas_alone() -> None:
        torch.matmul(p.a_full, p.b, out=st["c"])

    def triton_alone() -> None:
        launch_gemm(kernel, p.a_full, p.b, st["c"], cfg)

    def comm_alone() -> None:
        comm.all_gather_rows(st["gathered"], p.a, group)

    def out() -> torch.Tensor | None:
        return st.get("c")

    return [
        Variant(SEQ_CUBLAS, seq_cublas, out, lambda: alloc("gathered", "c"), lambda: poison(st["gathered"], st["c"]),
                st.clear, BASELINE, CUBLAS, OUT),
        _async_tp(Variant(ASYNC_TP, async_tp, out, async_tp_setup,
                          lambda: poison_allocator(d.c, ctx.dtype, ctx.device), st.clear, BASELINE, CUBLAS, OUT), ctx),
        Variant(SEQ_TRITON, seq_triton, out, lambda: alloc("gathered", "c"), lambda: poison(st["gathered"], st["c"]),
                st.clear, BASELINE, TRITON, OUT),
        Variant(CUBLAS_ALONE, cublas_alone, out, lambda: alloc("c"), lambda: poison(st["c"]), st.clear,
                ALONE, None, OUT),
        Variant(TRITON_ALONE, triton_alone, out, lambda: alloc("c"), lambda: poison(st["c"]), st.clear,
                ALONE, None, OUT),
        Variant(COMM_ALONE, comm_alone, lambda: st.get("gathered"), lambda: alloc("gathered"),
                lambda: poison(st["gathered"]), st.clear, ALONE, None, GATHERED),
    ]


def _gemm_rs(spec: BenchSpec, ctx: BenchWorld) -> list[Variant]:
    p, d, cfg, group = spec.problem, spec.dims, spec.config, ctx.group
    assert p is not None and p.partial is not None
    st: dict[str, Any] = {}
    kernel = gemm_kernel(cfg)

    def alloc(*names: str) -> None:
        for name in names:
            st[name] = _empty(d.c if name == "partial" else d.out, ctx)

    def seq_cublas() -> None:
        torch.matmul(p.a, p.b, out=st["partial"])
        comm.reduce_scatter_rows(st["out"], st["partial"], group)

    def seq_triton() -> None:
        launch_gemm(kernel, p.a, p.b, st["partial"], cfg)
        comm.reduce_scatter_rows(st["out"], st["partial"], group)

    def async_tp_setup() -> None:
        if ctx.cpu:
            raise RuntimeError("needs CUDA")
        comm.enable_symmetric_memory(ctx.group_name)

    def async_tp() -> None:
        st["out"] = torch.ops.symm_mem.fused_matmul_reduce_scatter(p.a, p.b, "sum", scatter_dim=0,
                                                                   group_name=ctx.group_name)

    def cublas_alone() -> None:
        torch.matmul(p.a, p.b, out=st["partial"])

    def triton_alone() -> None:
        launch_gemm(kernel, p.a, p.b, st["partial"], cfg)

    def comm_alone() -> None:
        comm.reduce_scatter_rows(st["out"], p.partial, group)

    def out() -> torch.Tensor | None:
        return st.get("out")

    def partial() -> torch.Tensor | None:
        return st.get("partial")

    return [
        Variant(SEQ_CUBLAS, seq_cublas, out, lambda: alloc("partial", "out"), lambda: poison(st["partial"], st["out"]),
                st.clear, BASELINE, CUBLAS, OUT),
        _async_tp(Variant(ASYNC_TP, async_tp, out, async_tp_setup,
                          lambda: poison_allocator(d.out, ctx.dtype, ctx.device), st.clear, BASELINE, CUBLAS, OUT),
                  ctx),
        Variant(SEQ_TRITON, seq_triton, out, lambda: alloc("partial", "out"), lambda: poison(st["partial"], st["out"]),
                st.clear, BASELINE, TRITON, OUT),
        Variant(CUBLAS_ALONE, cublas_alone, partial, lambda: alloc("partial"), lambda: poison(st["partial"]),
                st.clear, ALONE, None, PARTIAL),
        Variant(TRITON_ALONE, triton_alone, partial, lambda: alloc("partial"), lambda: poison(st["partial"]),
                st.clear, ALONE, None, PARTIAL),
        Variant(COMM_ALONE, comm_alone, out, lambda: alloc("out"), lambda: poison(st["out"]), st.clear,
                ALONE, None, OUT),
    ]


def _async_tp(variant: Variant, ctx: BenchWorld) -> Variant:
    """async-TP needs CUDA symmetric memory: n/a on the CPU."""
    if ctx.cpu:
        variant.na = "needs CUDA"
    return variant
