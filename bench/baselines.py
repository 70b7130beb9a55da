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
copy engine moves bytes but does not add, so a reduction needs a kernel;
the floor is NCCL alone there.

For gemm-ar the same with ``all_reduce`` (in place on the partial) after
the GEMM. torch has no fused matmul + all-reduce, so both async-TP rows are
n/a and its symmetric-memory baseline is cuBLAS into a symmetric buffer,
then ``torch.ops.symm_mem.one_shot_all_reduce`` (``cuBLAS+symm-mem
1-shot``) or ``two_shot_all_reduce_`` (``2-shot``); the report takes the
faster of them as its "async-TP" reference. ``NCCL alone`` all-reduces the
precomputed partial (see :func:`_all_reduce_alone` for how without a copy).

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
from syncopate.bench.problem import GATHERED, OUT, PAPER_LAYERS, PARTIAL, BenchSpec
from syncopate.bench.shapes import A2A_GEMM, AG_ATTN, AG_GEMM, GEMM_AR, REDUCED
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
    SYMM_ONE_SHOT,
    SYMM_TWO_SHOT,
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
CE_REDUCE = "not run: a copy engine moves bytes but does not add; a reduction needs a kernel"
NATIVE_RS = "not run: torch has no native async-TP path for matmul + reduce-scatter"
NO_FUSED_AR = f"not run: torch has no fused matmul + all-reduce (its symmetric-memory rows: {SYMM_ONE_SHOT}, {SYMM_TWO_SHOT})"


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
    if workload in REDUCED:
        return _gemm_reduced
    if workload == AG_ATTN:
        from syncopate.bench import attention

        return attention.baseline_variants
    if workload in PAPER_LAYERS:
        from syncopate.bench import paper_layers

        return paper_layers.baseline_variants
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
        _needs_cuda(row(ASYNC_TP, async_tp, async_tp_setup, poison_library_output, BASELINE, CUBLAS), ctx),
        _needs_cuda(row(ASYNC_TP_NATIVE, native, native_setup, poison_library_output, BASELINE, CUBLAS), ctx),
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


def _gemm_reduced(spec: BenchSpec, ctx: BenchWorld) -> list[Variant]:
    """gemm-rs and gemm-ar: the rank's M x N partial, then its reduction
    (reduce-scatter or all-reduce); the rows the two share are built here,
    the torch symmetric-memory rows and NCCL alone per collective."""
    p, d, cfg, group = spec.problem, spec.dims, spec.config, ctx.group
    assert p is not None and p.partial is not None
    all_reduce = spec.workload == GEMM_AR
    st: dict[str, Any] = {}
    kernel = gemm_kernel(cfg)

    def alloc(*names: str) -> None:
        for name in names:
            st[name] = _empty(d.c if name == "partial" else d.out, ctx)

    def sequential(gemm: Callable[[torch.Tensor], None]) -> None:
        if all_reduce:  # in place: the partial becomes the sum
            gemm(st["out"])
            comm.all_reduce(st["out"], group)
        else:
            gemm(st["partial"])
            comm.reduce_scatter_rows(st["out"], st["partial"], group)

    def cublas(c: torch.Tensor) -> None:
        torch.matmul(p.a, p.b, out=c)

    def triton(c: torch.Tensor) -> None:
        launch_gemm(kernel, p.a, p.b, c, cfg)

    seq_buffers = ("out",) if all_reduce else ("partial", "out")

    def out() -> torch.Tensor | None:
        return st.get("out")

    def partial() -> torch.Tensor | None:
        return st.get("partial")

    def poison_all() -> None:
        poison(*(st[name] for name in seq_buffers))

    def row(name: str, run: Callable[[], None], setup: Callable[[], None], poisoned: Callable[[], None],
            group_: str, compute: str | None, result: Callable[[], torch.Tensor | None] = out,
            expect: str = OUT) -> Variant:
        return Variant(name, run, result, setup, poisoned, st.clear, group_, compute, expect)

    torch_rows = (_all_reduce_symm_rows if all_reduce else _reduce_scatter_async_tp)(spec, ctx, st, row)
    return [
        row(SEQ_CUBLAS, lambda: sequential(cublas), lambda: alloc(*seq_buffers), poison_all, BASELINE, CUBLAS),
        unavailable(SEQ_CE, CE_REDUCE, BASELINE, CUBLAS),
        *torch_rows,
        row(SEQ_TRITON, lambda: sequential(triton), lambda: alloc(*seq_buffers), poison_all, BASELINE, TRITON),
        row(CUBLAS_ALONE, lambda: cublas(st["partial"]), lambda: alloc("partial"), lambda: poison(st["partial"]),
            ALONE, None, partial, PARTIAL),
        row(TRITON_ALONE, lambda: triton(st["partial"]), lambda: alloc("partial"), lambda: poison(st["partial"]),
            ALONE, None, partial, PARTIAL),
        (_all_reduce_alone if all_reduce else _reduce_scatter_alone)(spec, ctx, st, row),
        unavailable(CE_ALONE, CE_REDUCE, ALONE, None),
    ]


RowMaker = Callable[..., Variant]  # _gemm_reduced's ``row``: a Variant over the builder's state


def _reduce_scatter_async_tp(spec: BenchSpec, ctx: BenchWorld, st: dict[str, Any], row: RowMaker) -> list[Variant]:
    p = spec.problem

    def setup() -> None:
        if ctx.cpu:
            raise RuntimeError("needs CUDA")
        comm.enable_symmetric_memory(ctx.group_name)

    def async_tp() -> None:
        st["out"] = torch.ops.symm_mem.fused_matmul_reduce_scatter(p.a, p.b, "sum", scatter_dim=0,
                                                                   group_name=ctx.group_name)

    def poisoned() -> None:
        poison_allocator(spec.dims.out, ctx.dtype, ctx.device)

    return [_needs_cuda(row(ASYNC_TP, async_tp, setup, poisoned, BASELINE, CUBLAS), ctx),
            unavailable(ASYNC_TP_NATIVE, NATIVE_RS, BASELINE, CUBLAS)]


def _all_reduce_symm_rows(spec: BenchSpec, ctx: BenchWorld, st: dict[str, Any], row: RowMaker) -> list[Variant]:
    """torch has no fused matmul + all-reduce: its symmetric-memory baseline
    is cuBLAS into a symmetric buffer, then ``torch.ops.symm_mem``'s one-shot
    (each rank reads every peer's buffer whole: the fewest steps) or two-shot
    (reduce-scatter then all-gather through the buffers: the fewest bytes)
    all-reduce; which is faster depends on the size, so both are timed."""
    p = spec.problem

    def setup() -> None:
        if ctx.cpu:
            raise RuntimeError("needs CUDA")
        st["sym"] = comm.symmetric_empty(spec.dims.c, ctx.dtype, ctx.device, ctx.group_name)
        st["out"] = st["sym"]

    def one_shot() -> None:  # the sum lands in a tensor the op allocates
        torch.matmul(p.a, p.b, out=st["sym"])
        st["out"] = torch.ops.symm_mem.one_shot_all_reduce(st["sym"], "sum", ctx.group_name)

    def two_shot() -> None:  # in place
        torch.matmul(p.a, p.b, out=st["sym"])
        torch.ops.symm_mem.two_shot_all_reduce_(st["sym"], "sum", ctx.group_name)

    def poison_one_shot() -> None:
        poison(st["sym"])
        poison_allocator(spec.dims.out, ctx.dtype, ctx.device)

    return [unavailable(ASYNC_TP, NO_FUSED_AR, BASELINE, CUBLAS),
            unavailable(ASYNC_TP_NATIVE, NO_FUSED_AR, BASELINE, CUBLAS),
            _needs_cuda(row(SYMM_ONE_SHOT, one_shot, setup, poison_one_shot, BASELINE, CUBLAS), ctx),
            _needs_cuda(row(SYMM_TWO_SHOT, two_shot, setup, lambda: poison(st["sym"]), BASELINE, CUBLAS), ctx)]


def _reduce_scatter_alone(spec: BenchSpec, ctx: BenchWorld, st: dict[str, Any], row: RowMaker) -> Variant:
    """NCCL alone: reduce-scatter the precomputed partial (out of place, so every launch reads the same input)."""
    p = spec.problem

    def setup() -> None:
        st["out"] = _empty(spec.dims.out, ctx)

    return row(COMM_ALONE, lambda: comm.reduce_scatter_rows(st["out"], p.partial, ctx.group), setup,
               lambda: poison(st["out"]), ALONE, None)


def _all_reduce_alone(spec: BenchSpec, ctx: BenchWorld, st: dict[str, Any], row: RowMaker) -> Variant:
    """NCCL alone: an all-reduce of the partial. torch's all-reduce is in
    place, so a sum would grow by W at every launch and a copy of the
    partial before each would be timed with it; it averages instead
    (the same traffic: NCCL scales each input as it loads it), which leaves
    a buffer of equal ranks unchanged. ``produce`` writes the partial before
    every checked launch; the result, W times the mean, is formed untimed.
    (Exact for a W that is a power of two; otherwise each timed launch may
    round the mean by an ulp.)"""
    p, world = spec.problem, spec.world

    def setup() -> None:
        st["out"] = _empty(spec.dims.out, ctx)

    def result() -> torch.Tensor | None:
        return st["out"].float() * world if "out" in st else None

    variant = row(COMM_ALONE, lambda: comm.all_reduce(st["out"], ctx.group, average=True), setup,
                  lambda: poison(st["out"]), ALONE, None, result)
    variant.produce = lambda version: st["out"].copy_(p.partial)
    return variant


def _needs_cuda(variant: Variant, ctx: BenchWorld) -> Variant:
    """torch's symmetric-memory rows need CUDA: n/a on the CPU."""
    if ctx.cpu:
        variant.na = "needs CUDA"
    return variant
