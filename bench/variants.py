"""What one benchmarked row is, and the names of the fixed rows.

A :class:`Variant` is a bundle of callables the runner drives:
``setup()`` once (allocate, compile), ``poison()`` before the check run
(fill outputs with NaN), ``run()`` one iteration on the current stream,
``result()`` the tensor to compare with ``spec.problem.references[expect]``,
``teardown()`` to drop buffers. A row whose inputs change between checked
launches (``versions`` > 1, the all-gather rows) also has ``produce(v)``:
write input version ``v`` where the row reads it, untimed, before a
checked launch; its result is then compared with the reference of version
``v`` (:func:`syncopate.bench.problem.reference_key`). A variant that cannot run at all says so in
``na`` (the runner prints "n/a: <na>" without calling anything); one that
fails in ``setup``/``run`` raises, and the runner reports "n/a: <error>".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

# row groups (report order) and which compute engine a row's bound uses
BASELINE, ALONE, BOUND, FUSED = "baseline", "alone", "bound", "fused"
CUBLAS, TRITON = "cublas", "triton"

SEQ_CUBLAS = "cuBLAS+NCCL"
SEQ_CE = "cuBLAS+CE"  # copy-engine all-gather, then cuBLAS (bench/ce.py)
ASYNC_TP = "async-TP"
ASYNC_TP_NATIVE = "async-TP native"  # TORCH_SYMM_MEM_ENABLE_NATIVE_ASYNC_TP=1, where torch has that path
# gemm-ar's torch baselines (torch has no fused matmul + all-reduce): cuBLAS, then torch.ops.symm_mem's all-reduce
SYMM_ONE_SHOT = "cuBLAS+symm-mem 1-shot"
SYMM_TWO_SHOT = "cuBLAS+symm-mem 2-shot"
SEQ_TRITON = "Triton+NCCL"
CUBLAS_ALONE = "cuBLAS alone"
TRITON_ALONE = "Triton alone"
COMM_ALONE = "NCCL alone"
CE_ALONE = "CE alone"  # the copy-engine all-gather alone
FLOOR = "floor min(NCCL, CE)"  # the communication floor: the faster transport alone
BOUND_CUBLAS = "bound max(cuBLAS, floor)"
BOUND_TRITON = "bound max(Triton, floor)"
NO_COMM = "syncopate no-comm"  # the fused kernel with every chunk in place (bench/no_comm.py)

BOUND_OF = {CUBLAS: BOUND_CUBLAS, TRITON: BOUND_TRITON}  # compute engine -> its bound row
ALONE_OF = {CUBLAS: CUBLAS_ALONE, TRITON: TRITON_ALONE}
COMM_ROWS = (COMM_ALONE, CE_ALONE)  # the transports alone; the floor is the faster
# torch's symmetric-memory rows: async-TP both ways, and for gemm-ar the symm-mem all-reduces after cuBLAS;
# the "vs async-TP" baseline is the fastest of them
ASYNC_TP_ROWS = (ASYNC_TP, ASYNC_TP_NATIVE, SYMM_ONE_SHOT, SYMM_TWO_SHOT)


def fused_name(backend: str, order: str, chunks: int = 1, lanes: int = 1, tile: str = "",
               reduce: str = "stream", direct: bool = False) -> str:
    """Row name of a syncopate variant: ``syncopate ce/arrival``, with
    ``chunks_per_rank`` > 1 ``syncopate ce/arrival/c4``, with more than one
    ce lane ``syncopate ce/arrival/l3`` (or ``.../c2/l3``), with its own GEMM
    tile ``syncopate ce/arrival/t128x128``, reducing in the kernel's epilogue
    (``overlap{reduce=epilogue}``) ``syncopate ce/arrival/epi``, all-reducing
    by one-shot pushes (``overlap{reduce=push}``) ``syncopate ce/arrival/push``,
    with the producer writing the all-gather's input straight into the
    symmetric buffer (no staging copy in the timed region) ``syncopate ce/arrival/direct``."""
    return (f"syncopate {backend}/{order}" + (f"/c{chunks}" if chunks > 1 else "")
            + (f"/l{lanes}" if lanes > 1 else "") + (f"/t{tile}" if tile else "")
            + REDUCE_SUFFIX.get(reduce, "") + (DIRECT if direct else ""))


REDUCE_SUFFIX = {"epilogue": "/epi", "push": "/push"}  # overlap{reduce=...} in a row's name (stream: none)


DIRECT = "/direct"


def is_direct(name: str) -> bool:
    """A ``/direct`` row: it skips the staging copy a call with an ordinary
    input pays, so it is never a shape's verdict nor the autotune's choice."""
    return name.endswith(DIRECT)


def overlap_pass(backend: str, order: str, reduce: str = "stream", hoist_loops: bool = False) -> Any:
    """The pass pipeline of one row, built as the pass it is (no ``-p``
    text): ``overlap{order=arrival backend=ce}``, with ``reduce=epilogue``
    when the kernel sums the partials and ``hoist_loops=true`` when a
    loop's waits are hoisted above it."""
    from syncopate.passes.overlap_pipeline import OverlapPipelinePass  # imports the passes: compiling rows only

    return OverlapPipelinePass(order=order, backend=backend, reduce=reduce,  # type: ignore[arg-type]
                               hoist_loops=hoist_loops)


@dataclass(frozen=True)
class FusedOptions:
    """What distinguishes one syncopate row: the pipeline's backend and tile
    order, the plan's ``chunks_per_rank``, the runtime's ce lanes
    (concurrent copy streams, see runtime/gpu/__init__.py) and the GEMM tile
    (``"BMxBN"`` or ``"BMxBNxBK"``, see ``configs.with_tile``; ``""``: the
    shape's Triton configuration, the one the "Triton alone" row runs) and
    where a reduce-scatter's partials are summed (``reduce``: "stream" or
    "epilogue", see fuse-peer-reduction)."""

    backend: str
    order: str
    chunks: int = 1
    lanes: int = 1
    tile: str = ""
    reduce: str = "stream"  # overlap{reduce=...}: where a reduce-scatter's partials are summed
    cached: bool = False  # the ``auto`` row resolved from the autotune cache (see fused.auto_row)
    direct: bool = False  # all-gather: the producer writes the shard into the symmetric buffer (no staging copy)

    @property
    def name(self) -> str:
        name = fused_name(self.backend, self.order, self.chunks, self.lanes, self.tile, self.reduce, self.direct)
        return name.replace("syncopate ", "syncopate auto=", 1) if self.cached else name

    @property
    def meta(self) -> dict[str, Any]:
        return {"backend": self.backend, "order": self.order, "chunks": self.chunks, "lanes": self.lanes,
                "tile": self.tile, "reduce": self.reduce}


def _nothing() -> None:
    return None


def _ignore(version: int) -> None:
    return None


@dataclass
class Variant:
    """One row of a table: how to set it up, run it once and read its result."""

    name: str
    run: Callable[[], None] = _nothing
    result: Callable[[], torch.Tensor | None] = _nothing
    setup: Callable[[], None] = _nothing
    poison: Callable[[], None] = _nothing
    teardown: Callable[[], None] = _nothing
    group: str = FUSED
    compute: str | None = TRITON  # whose bound applies (None: no efficiency)
    expect: str = "out"  # key of Problem.references
    na: str | None = None  # set: the row is "n/a: <na>" and nothing runs
    meta: dict[str, Any] = field(default_factory=dict)  # e.g. backend, order
    versions: int = 1  # input versions the checks cycle through (> 1: inputs change between checked launches)
    produce: Callable[[int], None] = _ignore  # write input version v where run() reads it (untimed)
    note: str = ""  # shown in the row's status, e.g. why it is the headline


def one_state_per_row(build: Callable[[], list[Variant]]) -> list[Variant]:
    """Row i of the i-th call of ``build``. A builder keeps its rows' buffers
    in one dict per call, which its rows share (a row's ``setup`` replaces
    what the previous row allocated); timed round-robin (bench/runner.py),
    every row's buffers and CUDA graph live at once, and a graph replay
    would write into a buffer a later setup freed. So no two rows may share one."""
    first = build()
    return first[:1] + [build()[i] for i in range(1, len(first))]


def unavailable(name: str, reason: str, group: str = FUSED, compute: str | None = TRITON,
                **meta: Any) -> Variant:
    """A row that is reported as ``n/a: reason``."""
    return Variant(name, group=group, compute=compute, na=reason, meta=dict(meta))
