"""The non-syncopate rows of a table (ag-attn's are in :mod:`syncopate.bench.attention`,
a2a-gemm's in :mod:`syncopate.bench.moe`).

For ag-gemm (see :mod:`syncopate.bench.shapes` for the layouts):

``cuBLAS+NCCL``      all_gather_into_tensor(A), then torch.matmul
``cuBLAS+CE``        the copy-engine all-gather (bench/ce.py), then torch.matmul
``async-TP``         torch.ops.symm_mem.fused_all_gather_matmul(a_shard, [b], gather_dim=0, group_name=...)
``async-TP native``  the same with TORCH_SYMM_MEM_ENABLE_NATIVE_ASYNC_TP=1 set around the call, where
                     torch takes its native path for the shape (n/a where it does not)
``Triton+NCCL``      all_gather_into_tensor(A), then the local Triton GEMM
``cuBLAS alone``     torch.matmul of the (already gathered) M x K A
``Triton alone``     the local Triton GEMM on the gathered A
``NCCL alone``       all_gather_into_tensor(A)
``CE alone``         the copy-engine all-gather

Their inputs change between checked launches like the fused rows'
(``Variant.produce``): each row reads its own copy of the shard (or of the
gathered A), which ``produce(v)`` fills with input version ``v``.

For gemm-rs the same rows with the GEMM of the rank's partial (M x N) first
and reduce_scatter_tensor after; async-TP is
``torch.ops.symm_mem.fused_matmul_reduce_scatter(a, b, "sum", scatter_dim=0, group_name=...)``
(torch has no native reduce-scatter path: that row is n/a); ``NCCL alone``
reduce-scatters a precomputed bf16 partial. The copy-engine rows are n/a: a
copy engine moves bytes but does not add, so a reduce-scatter needs a
kernel; the floor is NCCL alone there.

Every output we allocate is poisoned (NaN) before the check run; outputs a
library allocates itself (torch.matmul without ``out=``, async-TP) are
checked as returned, after leaving a NaN block of their size in the caching
allocator (:func:`poison_allocator`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch

from syncopate.bench import ce, comm
from syncopate.bench.check import poison, poison_allocator
from syncopate.bench.context import BenchWorld
from syncopate.bench.gemm import gemm_kernel, launch_gemm
from syncopate.bench.problem import GATHERED, OUT, PARTIAL, BenchSpec
from syncopate.bench.shapes import A2A_GEMM, AG_ATTN, AG_GEMM, GEMM_RS
from syncopate.bench.variants import (
    ALONE,
    ASYNC_TP,
    ASYNC_TP_NATIVE,
    BASELINE,
    CE_ALONE,
    COMM_ALONE,
    CUBLAS,
    CUBLAS_ALONE,
    SEQ_CE,
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
    (SEQ_CE, BASELINE, CUBLAS),
    (ASYNC_TP, BASELINE, CUBLAS),
    (ASYNC_TP_NATIVE, BASELINE, CUBLAS),
    (SEQ_TRITON, BASELINE, TRITON),
    (CUBLAS_ALONE, ALONE, None),
    (TRITON_ALONE, ALONE, None),
    (COMM_ALONE, ALONE, None),
    (CE_ALONE, ALONE, None),
)

NATIVE_ENV = "TORCH_SYMM_MEM_ENABLE_NATIVE_ASYNC_TP"
CE_REDUCE = "not run: a copy engine moves bytes but does not add; a reduce-scatter needs a kernel"
NATIVE_RS = "not run: torch has no native async-TP path for matmul + reduce-scatter"


def baseline_variants(spec: BenchSpec, ctx: BenchWorld) -> list[Variant]:
    """The baseline rows of ``spec`` (:data:`ROWS`; n/a rows for workloads
    without a kernel), each with buffers of its own (``one_state_per_row``)."""
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
            shape = {"gathered": d.gathered, "a_full": d.gathered, "a": d.a}.get(name, d.c)
            st[name] = _empty(shape, ctx)

    def produce_shard(version: int) -> None:
        st["a"].copy_(p.a_versions[version])

    def produce_full(version: int) -> None:
        st["a_full"].copy_(p.a_full_versions[version])

    def ce_setup(*names: str) -> None:
        alloc("a", *names)
        st["ce"] = ce.make_gather(ctx, d.gathered, ctx.dtype)

    def seq_cublas() -> None:
        comm.all_gather_rows(st["gathered"], st["a"], group)
        torch.matmul(st["gathered"], p.b, out=st["c"])

    def seq_ce() -> None:
        st["ce"](st["gathered"], st["a"])
        torch.matmul(st["gathered"], p.b, out=st["c"])

    def seq_triton() -> None:
        comm.all_gather_rows(st["gathered"], st["a"], group)
        launch_gemm(kernel, st["gathered"], p.b, st["c"], cfg)

    def async_tp_setup() -> None:
        if ctx.cpu:
            raise RuntimeError("needs CUDA")
        comm.enable_symmetric_memory(ctx.group_name)
        alloc("a")

    def async_tp() -> None:
        _, outs = torch.ops.symm_mem.fused_all_gather_matmul(st["a"], [p.b], gather_dim=0, group_name=ctx.group_name)
        st["c"] = outs[0]

    def native_setup() -> None:
        async_tp_setup()
        with native_async_tp():
            if not native_applies(st["a"], p.b, ctx.group_name):
                raise RuntimeError("not run: torch's native async-TP path does not apply to this shape")

    def native() -> None:
        with native_async_tp():
            async_tp()

    def cublas_alone() -> None:
        torch.matmul(st["a_full"], p.b, out=st["c"])

    def triton_alone() -> None:
        launch_gemm(kernel, st["a_full"], p.b, st["c"], cfg)

    def comm_alone() -> None:
        comm.all_gather_rows(st["gathered"], st["a"], group)

    def ce_alone() -> None:
        st["ce"](st["gathered"], st["a"])

    def out() -> torch.Tensor | None:
        return st.get("c")

    def gathered() -> torch.Tensor | None:
        return st.get("gathered")

    def row(name: str, run: Callable[[], None], setup: Callable[[], None], poisoned: Callable[[], None],
            group_: str, compute: str | None, result: Callable[[], torch.Tensor | None] = out, expect: str = OUT,
            produce: Callable[[int], None] = produce_shard) -> Variant:
        return Variant(name, run, result, setup, poisoned, st.clear, group_, compute, expect,
                       versions=p.versions, produce=produce)

    def poison_library_output() -> None:
        poison_allocator(d.c, ctx.dtype, ctx.device)

    return [
        row(SEQ_CUBLAS, seq_cublas, lambda: alloc("a", "gathered", "c"), lambda: poison(st["gathered"], st["c"]),
            BASELINE, CUBLAS),
        row(SEQ_CE, seq_ce, lambda: ce_setup("gathered", "c"),
            lambda: poison(st["gathered"], st["c"], st["ce"].buffer), BASELINE, CUBLAS),
        _async_tp(row(ASYNC_TP, async_tp, async_tp_setup, poison_library_output, BASELINE, CUBLAS), ctx),
        _async_tp(row(ASYNC_TP_NATIVE, native, native_setup, poison_library_output, BASELINE, CUBLAS), ctx),
        row(SEQ_TRITON, seq_triton, lambda: alloc("a", "gathered", "c"), lambda: poison(st["gathered"], st["c"]),
            BASELINE, TRITON),
        row(CUBLAS_ALONE, cublas_alone, lambda: alloc("a_full", "c"), lambda: poison(st["c"]), ALONE, None,
            produce=produce_full),
        row(TRITON_ALONE, triton_alone, lambda: alloc("a_full", "c"), lambda: poison(st["c"]), ALONE, None,
            produce=produce_full),
        row(COMM_ALONE, comm_alone, lambda: alloc("a", "gathered"), lambda: poison(st["gathered"]), ALONE, None,
            gathered, GATHERED),
        row(CE_ALONE, ce_alone, lambda: ce_setup("gathered"), lambda: poison(st["gathered"], st["ce"].buffer),
            ALONE, None, gathered, GATHERED),
    ]


@contextmanager
def native_async_tp() -> Iterator[None]:
    """``TORCH_SYMM_MEM_ENABLE_NATIVE_ASYNC_TP=1`` while the block runs
    (torch reads it at every call, so a captured graph keeps the path it took)."""
    before = os.environ.get(NATIVE_ENV)
    os.environ[NATIVE_ENV] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ[NATIVE_ENV]
        else:
            os.environ[NATIVE_ENV] = before


def native_applies(a_shard: torch.Tensor, b: torch.Tensor, group_name: str) -> bool:
    """Whether torch's fused_all_gather_matmul takes its native path for these inputs (with the variable set)."""
    import torch.distributed._symmetric_memory as symm_mem

    decide = getattr(symm_mem, "_should_use_fused_all_gather_matmul_native", None)
    return bool(decide is not None and decide(a_shard, [b], 0, group_name))


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
        unavailable(SEQ_CE, CE_REDUCE, BASELINE, CUBLAS),
        _async_tp(Variant(ASYNC_TP, async_tp, out, async_tp_setup,
                          lambda: poison_allocator(d.out, ctx.dtype, ctx.device), st.clear, BASELINE, CUBLAS, OUT),
                  ctx),
        unavailable(ASYNC_TP_NATIVE, NATIVE_RS, BASELINE, CUBLAS),
        Variant(SEQ_TRITON, seq_triton, out, lambda: alloc("partial", "out"), lambda: poison(st["partial"], st["out"]),
                st.clear, BASELINE, TRITON, OUT),
        Variant(CUBLAS_ALONE, cublas_alone, partial, lambda: alloc("partial"), lambda: poison(st["partial"]),
                st.clear, ALONE, None, PARTIAL),
        Variant(TRITON_ALONE, triton_alone, partial, lambda: alloc("partial"), lambda: poison(st["partial"]),
                st.clear, ALONE, None, PARTIAL),
        Variant(COMM_ALONE, comm_alone, out, lambda: alloc("out"), lambda: poison(st["out"]), st.clear,
                ALONE, None, OUT),
        unavailable(CE_ALONE, CE_REDUCE, ALONE, None),
    ]


def _async_tp(variant: Variant, ctx: BenchWorld) -> Variant:
    """async-TP needs CUDA symmetric memory: n/a on the CPU."""
    if ctx.cpu:
        variant.na = "needs CUDA"
    return variant
