"""syncopate's rows: one fused kernel per (backend, tile order, chunks per
rank, GEMM tile), for the ce backend per number of ce lanes, and for gemm-rs
on the ce backend per reduction (``overlap{reduce=stream|epilogue|push}``).

:func:`fused_variants` is the extension point: it returns one
:class:`Variant` per row, built only on the public runtime API
(``compile_fused``, ``FusedKernel``, ``GpuWorld``). To add a row (another
pipeline option, a new workload), append a Variant here; the runner checks
it against the reference and times it like any other.

ag-gemm: ``all-gather{tensor=a_ptr dim=0 world=W}`` fused into
``kernels/gemm_bf16.py``. The gathered A is a symmetric M x K buffer. A
row pays what a correct public call pays: its timed ``run()`` writes this
rank's shard (the row's own input tensor, which ``produce(v)`` fills with
input version ``v``) into its rows of the buffer on the compute stream,
then launches; the launch itself carries the readiness and reuse tokens
(runtime/gather_tokens.py), so no barrier is needed between launches.
``/direct`` rows time the path where the producer of A writes straight
into the symmetric buffer: ``produce(v)`` writes the rows there (untimed)
and ``run()`` is the launch alone; they get a buffer of their own. The
staged rows of a shape share one buffer (each launch rewrites its own
rows). Before every checked launch the whole buffer is poisoned (NaN),
and each checked launch reads the next input version, so a peer's rows
must be delivered by that launch.

gemm-rs: ``reduce-scatter{tensor=c_ptr dim=0 world=W}``; the fused kernel is
called with an ordinary M x N output c, and afterwards rank r's rows
``[r*M/W, (r+1)*M/W)`` of c hold the reduced result. gemm-ar:
``all-reduce{tensor=c_ptr dim=0 world=W}``, the same rows, and afterwards
all of c holds the sum on every rank (the runtime sends each owner's summed
rows to every rank after the reduction). Neither runs on the sm backend,
whose programs pull gathered chunks only, and gemm-ar has no epilogue rows
(fuse-peer-reduction sums reduce-scatter partials); its push rows
(``overlap{reduce=push}``: each tile pushes its partial to every peer and
stores the sum, no collective after the kernel) run on the pointer GEMM
with at most one program per SM. Before every checked
launch the output and every ce reduce-scatter staging buffer of the GPU
World are poisoned (the first poisoning launches once to allocate them),
so a reduction that read a peer's partial before it arrived sums NaN.
Epilogue rows (``.../epi``)
sum the peers' partials in the owner's tiles (fuse-peer-reduction): they
run the persistent GEMM only, leaving an SM to the communication stream
and to each ce lane (their waits, which the owner's tiles depend on, may
each take an SM: ``runtime.gpu.epilogue_comm_sms``).

Programs are compiled once per (workload, W, backend, order) and process
(they do not depend on the shape); compilation happens in ``setup``, so a
pipeline error shows as "n/a: <error>" in that row only.
"""

from __future__ import annotations

import math

from collections.abc import Callable, Sequence
from typing import Any

import torch

from syncopate.bench import gemm
from syncopate.bench.check import poison
from syncopate.bench.configs import PERSISTENT_KERNELS, GemmConfig, with_tile
from syncopate.bench.context import BenchWorld
from syncopate.bench.gemm import gemm_kernel, kernel_name, kernel_path, launch_gemm
from syncopate.bench.problem import OUT, PAPER_LAYERS, BenchSpec
from syncopate.bench.shapes import A2A_GEMM, AG_ATTN, AG_GEMM, GEMM_AR, GEMM_RS, REDUCED
from syncopate.bench.variants import FUSED, TRITON, FusedOptions, Variant, fused_name, overlap_pass, unavailable

BACKENDS: tuple[str, ...] = ("ce", "sm", "nccl", "auto")
ORDERS: tuple[str, ...] = ("arrival", "rotate", "none")
REDUCTIONS: tuple[str, ...] = ("stream", "epilogue", "push")  # overlap{reduce=...}
LANE_BACKENDS: tuple[str, ...] = ("ce", "auto")  # backends whose transfers the ce lanes spread (auto compiles to ce here)

PLANS: dict[str, tuple[str, str]] = {  # workload -> (plan template, the kernel's pointer to the tensor), dim 0
    AG_GEMM: ("all-gather", "a_ptr"),
    GEMM_RS: ("reduce-scatter", "c_ptr"),
    GEMM_AR: ("all-reduce", "c_ptr"),
}

# Tiles that spin hold their SMs, and NCCL's kernels need SMs: only a
# local-first order lets finishing tiles hand SMs to NCCL on a full grid.
NCCL_ORDER = "not run: nccl chunks need order=arrival on full grids (spinning tiles would starve NCCL of SMs)"

NCCL_ATTN = ("not run: every attention tile waits for every K/V chunk, so on a full grid all SMs spin "
             "while NCCL's kernels need one")

NCCL_PERSISTENT = ("not run: a persistent kernel's programs hold every SM until all tiles are done, so tiles "
                   "spinning on nccl chunks starve NCCL's kernels in any order (the GPU World refuses it)")

NCCL_A2A = ("not run: tiles find their rows through a loaded table, so no tile order puts local rows first; "
            "on a full grid spinning tiles would starve NCCL's kernels of SMs")

# select-backend refuses it; saying so here spares a compile per row
SM_REDUCED = ("not run: the sm backend's programs pull gathered chunks; a reduction's partials go by ce or nccl "
              "(reduce-scatter, all-reduce)")

EPILOGUE_WORKLOAD = "not run: reduce=epilogue sums reduce-scatter partials (gemm-rs only)"

EPILOGUE_KERNEL = ("not run: reduce=epilogue needs the persistent TMA GEMM (its tiles' stores go through tensor "
                   "descriptors, and a grid larger than the GPU could fill every SM with tiles waiting for partials)")

PUSH_WORKLOAD = "not run: reduce=push is an all-reduce's one-shot (gemm-ar only)"

PUSH_KERNEL = ("not run: reduce=push needs a GEMM that stores each tile once through pointers, one program per tile "
               "(the ptr kernel; push-all-reduce refuses descriptor stores and tile loops)")

_PROGRAMS: dict[tuple[str, int, str, str, str, int, str, int], Any] = {}


def plan_dim(workload: str, rows: int, world: int) -> int:
    """The dim a workload's plan cuts: C's rows, except an all-reduce of
    fewer rows than W cannot give every rank rows of its reduction phase
    (a decode step's M = 1), so it cuts C's columns (N = hidden) instead."""
    return 1 if workload == GEMM_AR and rows % world else 0


def plan(workload: str, world: int, chunks: int = 1, dim: int = 0) -> Any:
    """The plan of ``workload`` at world size ``world``, each rank's rows
    cut into ``chunks`` chunks (``chunks_per_rank``), along ``dim`` of the
    kernel's tensor (1: the columns, extent N): the template's typed
    options, which reach the compiler without a spec string."""
    from syncopate.ir.plans.templates import template  # imports sympy: compiling rows only

    kind, tensor = PLANS[workload]
    return template(kind, world, tensor=tensor, dim=dim, chunks_per_rank=chunks, size="N" if dim else "M")


def program_for(workload: str, world: int, backend: str, order: str, config: GemmConfig, chunks: int = 1,
                reduce: str = "stream", dim: int = 0) -> Any:
    """The compiled FusedProgram of ``config``'s kernel (cached per process)."""
    key = (workload, world, backend, order, config.kernel, chunks, reduce, dim)
    if key not in _PROGRAMS:
        from syncopate.runtime.fused import compile_fused

        _PROGRAMS[key] = compile_fused(kernel_path(config), kernel_name(config), [plan(workload, world, chunks, dim)],
                                       overlap_pass(backend, order, reduce))
    return _PROGRAMS[key]


def row_options(backends: Sequence[str] = BACKENDS, orders: Sequence[str] = ORDERS, chunks: Sequence[int] = (1,),
                lanes: Sequence[int] = (1,), tiles: Sequence[str] = ("",),
                reductions: Sequence[str] = ("stream",), direct: bool = False) -> list[FusedOptions]:
    """The syncopate rows to run, in report order: every (tile, chunks,
    backend, order, reduction), and for the ce backends every lane count
    (others move no ce chunk, so they get one row). Epilogue reductions
    exist for the ce backend only (fuse-peer-reduction refuses the others),
    so other backends get their stream rows. ``direct``: each row is
    followed by its ``/direct`` twin (all-gather workloads only, see
    :func:`fused_variants`)."""
    rows: list[FusedOptions] = []
    for t in tiles:
        for c in chunks:
            for b in backends:
                for o in orders:
                    for n in (lanes if b in LANE_BACKENDS else (1,)):
                        for r in (reductions if b == "ce" else ("stream",)):
                            if FusedOptions(b, o, c, n, t, r) not in rows:
                                rows.append(FusedOptions(b, o, c, n, t, r))
                                if direct:
                                    rows.append(FusedOptions(b, o, c, n, t, r, direct=True))
    return rows


def auto_rows(rows: list[FusedOptions], choice: Any | None) -> list[FusedOptions]:
    """``rows`` with the ``auto`` rows replaced by one row that runs the
    autotune cache's ``choice`` for this shape (an ``autotune.Choice``:
    backend, order, chunks, lanes, tile), named ``syncopate
    auto=ce/arrival/c2``; without a cached choice the ``auto`` rows stay
    (select-backend's own pick, ce when sizes are unknown at compile time)."""
    if choice is None or not any(r.backend == "auto" for r in rows):
        return rows
    picked = FusedOptions(choice.backend, choice.order, choice.chunks, choice.lanes, choice.tile, choice.reduce,
                          cached=True)
    return [r for r in rows if r.backend != "auto"] + [picked]


def fused_variants(spec: BenchSpec, world_ctx: BenchWorld, backends: Sequence[str] = BACKENDS,
                   orders: Sequence[str] = ORDERS, chunks: Sequence[int] = (1,),
                   lanes: Sequence[int] = (1,), attn_waits: Sequence[str] = ("hoist",),
                   tiles: Sequence[str] = ("",), auto: Any | None = None,
                   reductions: Sequence[str] = ("stream",), direct: bool = False) -> list[Variant]:
    """One Variant per :func:`row_options` entry for ``spec`` on this rank
    (ag-attn: per entry and K/V wait placement ``attn_waits``); ``auto``, the
    autotune cache's choice for this shape, replaces the ``auto`` rows
    (:func:`auto_rows`); ``direct`` adds the ``/direct`` twin of every row.

    For a workload without a benchmark kernel: a single "n/a" row
    ``syncopate */*``, so its table says so instead of dropping it.
    """
    rows = auto_rows(row_options(backends, orders, chunks, lanes, tiles, reductions, direct), auto)
    return variants_for(spec, world_ctx, rows, attn_waits)


def variants_for(spec: BenchSpec, world_ctx: BenchWorld, rows: Sequence[FusedOptions],
                 attn_waits: Sequence[str] = ("hoist",)) -> list[Variant]:
    """The Variants of the syncopate rows ``rows`` of ``spec`` on this rank."""
    if spec.workload in PAPER_LAYERS:
        from syncopate.bench import paper_layers

        return paper_layers.fused_variants(spec, world_ctx, rows)
    if spec.workload not in (*PLANS, AG_ATTN, A2A_GEMM):  # one row stands for all of them
        return [unavailable(fused_name("*", "*"), f"no fused benchmark kernel for {spec.workload} yet")]
    if world_ctx.cpu:
        return [unavailable(r.name, "needs CUDA", **r.meta) for r in rows]
    out: list[Variant] = []
    for row in rows:
        kernel = getattr(spec.config, "kernel", "")  # attention's AttnConfig has none
        why = (_sm_refusal(spec.workload, row.backend)
               or _nccl_refusal(spec.workload, row.backend, row.order, kernel)
               or _tile_refusal(spec.workload, row.tile)
               or _reduce_refusal(spec.workload, row.reduce, kernel)
               or _push_grid_refusal(spec, world_ctx, row)
               or _direct_refusal(spec.workload, row.direct))
        if why:
            out.append(unavailable(row.name, why, **row.meta))
        elif spec.workload == AG_ATTN:
            from syncopate.bench import attention

            out += attention.fused_variants(spec, world_ctx, [row], attn_waits)
        else:
            out.append(_build(spec, world_ctx, row))
    return out


def _build(spec: BenchSpec, ctx: BenchWorld, row: FusedOptions) -> Variant:
    if spec.workload == A2A_GEMM:
        from syncopate.bench import moe

        return moe.fused_row(spec, ctx, row)
    return (_ag_variant if spec.workload == AG_GEMM else _reduced_variant)(spec, ctx, row)


def _sm_refusal(workload: str, backend: str) -> str | None:
    """The sm backend moves gathered chunks only (select-backend)."""
    return SM_REDUCED if backend == "sm" and workload in REDUCED else None


def _nccl_refusal(workload: str, backend: str, order: str, kernel: str = "") -> str | None:
    """Why a row whose tiles would spin on nccl chunks while NCCL needs their
    SMs is not run: a gather by a persistent kernel or in an order that is
    not local-first, or attention, where every tile waits for every K/V chunk
    (no order helps)."""
    if backend != "nccl":
        return None
    if workload == AG_ATTN:
        return NCCL_ATTN
    if workload == A2A_GEMM:
        return NCCL_A2A
    if workload == AG_GEMM and kernel in PERSISTENT_KERNELS:
        return NCCL_PERSISTENT
    return NCCL_ORDER if workload == AG_GEMM and order != "arrival" else None


TILED = (*PLANS, A2A_GEMM)  # workloads whose fused rows take their own GEMM tile (--tiles)


def _tile_refusal(workload: str, tile: str) -> str | None:
    """Own-tile rows exist for the GEMM workloads only."""
    if tile and workload not in TILED:
        return f"not run: a fused row's own GEMM tile applies to {', '.join(TILED)} only"
    return None


def _direct_refusal(workload: str, direct: bool) -> str | None:
    """``/direct`` rows exist where a producer can write the gathered input: the all-gather GEMM."""
    if direct and workload != AG_GEMM:
        return f"not run: a /direct row writes an all-gather's input in place ({AG_GEMM} only)"
    return None


def _reduce_refusal(workload: str, reduce: str, kernel: str) -> str | None:
    """Epilogue rows exist for gemm-rs on the persistent GEMM only, push rows
    for gemm-ar on the pointer GEMM only."""
    if reduce == "epilogue":
        if workload != GEMM_RS:
            return EPILOGUE_WORKLOAD
        return None if kernel in PERSISTENT_KERNELS else EPILOGUE_KERNEL
    if reduce == "push":
        if workload != GEMM_AR:
            return PUSH_WORKLOAD
        return None if kernel == "ptr" else PUSH_KERNEL
    return None


def _push_grid_refusal(spec: BenchSpec, ctx: BenchWorld, row: FusedOptions) -> str | None:
    """A push row whose grid the GPU cannot hold at once (the GPU World
    would refuse the launch: runtime/push.py's residency rule)."""
    if row.reduce != "push":
        return None
    from syncopate.runtime.push import SIMULATED_SMS

    m, n = spec.dims.c
    tiles = math.prod(gemm.grid(m, n, with_tile(spec.config, row.tile)))
    on_gpu = ctx.device is not None and ctx.device.type == "cuda"
    sms = gemm.programs(ctx.device) if on_gpu else SIMULATED_SMS  # the simulated ranks apply an H100's rule
    if tiles <= sms:
        return None
    return (f"not run: reduce=push waits inside the kernel for every rank's same tile, so all {tiles} programs must "
            f"be resident at once; the GPU has {sms} SMs (a one-shot all-reduce is for small outputs)")


def _gathered_buffer(spec: BenchSpec, ctx: BenchWorld, row: FusedOptions) -> torch.Tensor:
    """The symmetric M x K buffer of the gathered A: shared by the staged
    rows of a shape (each launch writes its own rows first), one per
    ``/direct`` row (whose rows hold what its last ``produce`` wrote)."""
    d = spec.dims
    assert d.gathered is not None
    key = ("ag-symmetric", d.gathered, spec.dtype) + ((row.name,) if row.direct else ())
    return ctx.shared_symmetric(key, d.gathered, spec.dtype)


def _fused_kernel(spec: BenchSpec, ctx: BenchWorld, row: FusedOptions) -> Any:
    """The compiled fused kernel of one row, launched like the original GEMM."""
    from syncopate.runtime.fused import FusedKernel

    program = program_for(spec.workload, spec.world, row.backend, row.order, spec.config, row.chunks, row.reduce,
                          plan_dim(spec.workload, spec.shape.M, spec.world))
    return FusedKernel(program, gemm_kernel(spec.config), ctx.gpu.context(ce_lanes=row.lanes))


def _fused_row(row: FusedOptions, st: dict[str, Any], run: Callable[[], None],
               result: Callable[[], torch.Tensor | None], setup: Callable[[], None],
               poison_all: Callable[[], None], versions: int = 1,
               produce: Callable[[int], None] | None = None) -> Variant:
    variant = Variant(row.name, run, result, setup, poison_all, st.clear, FUSED, TRITON, OUT, meta=row.meta,
                      versions=versions)
    if produce is not None:
        variant.produce = produce
    return variant


def _ag_variant(spec: BenchSpec, ctx: BenchWorld, row: FusedOptions) -> Variant:
    p, d, cfg = spec.problem, spec.dims, with_tile(spec.config, row.tile)
    assert p is not None
    lo, hi = spec.own_rows
    st: dict[str, Any] = {}

    def setup() -> None:
        st["kernel"] = _fused_kernel(spec, ctx, row)
        st["reserved"] = gemm.comm_programs(st["kernel"].program, ctx.gpu)
        st["buf"] = _gathered_buffer(spec, ctx, row)
        st["c"] = torch.empty(d.c, dtype=spec.dtype, device=ctx.device)
        st["a"] = p.a.clone()  # the producer's output: this rank's shard

    def produce(version: int) -> None:
        (st["buf"][lo:hi] if row.direct else st["a"]).copy_(p.a_versions[version])

    def poison_all() -> None:  # the runner barriers before and after: no peer is reading the buffer
        poison(st["c"], st["buf"])

    def launch() -> None:
        launch_gemm(st["kernel"], st["buf"], p.b, st["c"], cfg, st["reserved"])

    def staged() -> None:  # what the public call does: stage the shard on the compute stream, then launch
        st["buf"][lo:hi].copy_(st["a"])
        launch()

    return _fused_row(row, st, launch if row.direct else staged, lambda: st.get("c"), setup, poison_all,
                      p.versions, produce)


def _reduced_variant(spec: BenchSpec, ctx: BenchWorld, row: FusedOptions) -> Variant:
    p, d, cfg = spec.problem, spec.dims, with_tile(spec.config, row.tile)
    assert p is not None
    lo, hi = spec.kept_rows
    st: dict[str, Any] = {}

    from syncopate.runtime.gpu import epilogue_comm_sms

    reserved = epilogue_comm_sms(row.lanes) if row.reduce == "epilogue" else 0

    def setup() -> None:
        st["kernel"] = _fused_kernel(spec, ctx, row)
        st["c"] = torch.empty(d.c, dtype=spec.dtype, device=ctx.device)

    def run() -> None:
        launch_gemm(st["kernel"], p.a, p.b, st["c"], cfg, reserved)

    def poison_all() -> None:  # every rank poisons at once, between the runner's barriers
        if "launched" not in st:  # the first launch allocates the staging buffers (collectively)
            st["launched"] = True
            run()
            ctx.barrier()  # no peer still writes into this rank's staging buffers
        poison(st["c"], *staging_buffers(ctx.gpu))

    def result() -> torch.Tensor | None:
        return st["c"][lo:hi] if "c" in st else None

    return _fused_row(row, st, run, result, setup, poison_all)


def staging_buffers(gpu: Any) -> list[torch.Tensor]:
    """Every ce staging buffer of a reduction (reduce-scatter, all-reduce) the
    GPU World holds (one per launch configuration; what peers write their partials into),
    and every push all-reduce's staging (what peers push their partials into)."""
    return [*gpu.staging.values(), *getattr(gpu, "push_staging", {}).values()]
