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
    return _AgGemmRows(spec, ctx).variants()


class _AgGemmRows:
    """The all-gather GEMM's baseline rows: sequential NCCL (or ce) +
    cuBLAS (or the bench's Triton GEMM), torch's async-TP (its symmetric-
    memory op, and its native path where it applies), and each half alone.
    The rows share the tensors in ``st``, which a row's setup allocates and
    its teardown clears."""

    def __init__(self, spec: BenchSpec, ctx: BenchWorld):
        assert spec.problem is not None and spec.dims.gathered is not None
        self.p, self.d, self.cfg, self.ctx = spec.problem, spec.dims, spec.config, ctx
        self.st: dict[str, Any] = {}
        self.kernel = gemm_kernel(self.cfg)

    def alloc(self, *names: str) -> None:
        d = self.d
        for name in names:
            shape = {"gathered": d.gathered, "a_full": d.gathered, "a": d.a}.get(name, d.c)
            self.st[name] = _empty(shape, self.ctx)

    def produce_shard(self, version: int) -> None:
        self.st["a"].copy_(self.p.a_versions[version])

    def produce_full(self, version: int) -> None:
        self.st["a_full"].copy_(self.p.a_full_versions[version])

    def ce_setup(self, *names: str) -> None:
        self.alloc("a", *names)
        self.st["ce"] = ce.make_gather(self.ctx, self.d.gathered, self.ctx.dtype)

    def seq_cublas(self) -> None:
        comm.all_gather_rows(self.st["gathered"], self.st["a"], self.ctx.group)
        torch.matmul(self.st["gathered"], self.p.b, out=self.st["c"])

    def seq_ce(self) -> None:
        self.st["ce"](self.st["gathered"], self.st["a"])
        torch.matmul(self.st["gathered"], self.p.b, out=self.st["c"])

    def seq_triton(self) -> None:
        comm.all_gather_rows(self.st["gathered"], self.st["a"], self.ctx.group)
        launch_gemm(self.kernel, self.st["gathered"], self.p.b, self.st["c"], self.cfg)

    def async_tp_setup(self) -> None:
        if self.ctx.cpu:
            raise RuntimeError("needs CUDA")
        comm.enable_symmetric_memory(self.ctx.group_name)
        self.alloc("a")

    def async_tp(self) -> None:
        _, outs = torch.ops.symm_mem.fused_all_gather_matmul(self.st["a"], [self.p.b], gather_dim=0,
                                                              group_name=self.ctx.group_name)
        self.st["c"] = outs[0]

    def native_setup(self) -> None:
        self.async_tp_setup()
        with native_async_tp():
            if not native_applies(self.st["a"], self.p.b, self.ctx.group_name):
                raise RuntimeError("not run: torch's native async-TP path does not apply to this shape")

    def native(self) -> None:
        with native_async_tp():
            self.async_tp()

    def cublas_alone(self) -> None:
        torch.matmul(self.st["a_full"], self.p.b, out=self.st["c"])

    def triton_alone(self) -> None:
        launch_gemm(self.kernel, self.st["a_full"], self.p.b, self.st["c"], self.cfg)

    def comm_alone(self) -> None:
        comm.all_gather_rows(self.st["gathered"], self.st["a"], self.ctx.group)

    def ce_alone(self) -> None:
        self.st["ce"](self.st["gathered"], self.st["a"])

    def out(self) -> torch.Tensor | None:
        return self.st.get("c")

    def gathered(self) -> torch.Tensor | None:
        return self.st.get("gathered")

    def poison_library_output(self) -> None:
        poison_allocator(self.d.c, self.ctx.dtype, self.ctx.device)

    def row(self, name: str, run: Callable[[], None], setup: Callable[[], None], poisoned: Callable[[], None],
            group_: str, compute: str | None, result: Callable[[], torch.Tensor | None] | None = None,
            expect: str = OUT, produce: Callable[[int], None] | None = None) -> Variant:
        return Variant(name, run, result or self.out, setup, poisoned, self.st.clear, group_, compute, expect,
                       versions=self.p.versions, produce=produce or self.produce_shard)

    def variants(self) -> list[Variant]:
        st, ctx, row = self.st, self.ctx, self.row
        return [
            row(SEQ_CUBLAS, self.seq_cublas, lambda: self.alloc("a", "gathered", "c"),
                lambda: poison(st["gathered"], st["c"]), BASELINE, CUBLAS),
            row(SEQ_CE, self.seq_ce, lambda: self.ce_setup("gathered", "c"),
                lambda: poison(st["gathered"], st["c"], st["ce"].buffer), BASELINE, CUBLAS),
            _needs_cuda(row(ASYNC_TP, self.async_tp, self.async_tp_setup, self.poison_library_output, BASELINE,
                            CUBLAS), ctx),
            _needs_cuda(row(ASYNC_TP_NATIVE, self.native, self.native_setup, self.poison_library_output, BASELINE,
                            CUBLAS), ctx),
            row(SEQ_TRITON, self.seq_triton, lambda: self.alloc("a", "gathered", "c"),
                lambda: poison(st["gathered"], st["c"]), BASELINE, TRITON),
            row(CUBLAS_ALONE, self.cublas_alone, lambda: self.alloc("a_full", "c"), lambda: poison(st["c"]), ALONE,
                None, produce=self.produce_full),
            row(TRITON_ALONE, self.triton_alone, lambda: self.alloc("a_full", "c"), lambda: poison(st["c"]), ALONE,
                None, produce=self.produce_full),
            row(COMM_ALONE, self.comm_alone, lambda: self.alloc("a", "gathered"), lambda: poison(st["gathered"]),
                ALONE, None, self.gathered, GATHERED),
            row(CE_ALONE, self.ce_alone, lambda: self.ce_setup("gathered"),
                lambda: poison(st["gathered"], st["ce"].buffer), ALONE, None, self.gathered, GATHERED),
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
