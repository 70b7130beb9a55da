"""fuse-peer-reduction: a reduce-scatter's owner adds the peers' partials in the tile epilogue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.builder import Builder, InsertPoint
from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.dialects.chunk import PlanOp, ReduceSpanOp
from syncopate.ir.analysis import host_exprs
from syncopate.ir.analysis.chunk_access import BoundAccess, analyze
from syncopate.ir.analysis.manager import query
from syncopate.ir.contract import ORIGIN_ATTR

ORIGIN = StringAttr("fuse-peer-reduction")
ROW_DIM = 0  # the owner's rows: chunks of a reduce-scatter along dim 0


@dataclass(frozen=True)
class FusePeerReductionPass(ModulePass):
    """Move a reduce-scatter's final sum into the kernel's epilogue.

    Without this pass the owner of a chunk sums the peers' partials after
    its own tiles are done (the runtime's communication stream adds the
    staged partials into the output): with a persistent kernel, which holds
    every SM until its last tile, that add runs after the kernel.

    Assumes: the module's reduce-scatter plans are row chunks (dim 0) whose
    cross-rank chunks use the ``ce`` backend (run select-backend first), and
    the kernel stores each reduce-scattered tensor once per tile through a
    2-D tensor descriptor (``desc.store([row, col], value)``), at the top
    level of the kernel or of a persistent kernel's tile loop.

    Guarantees: each such store stores ``chunk.reduce_span value rows lo,
    extent cols c, c_extent`` instead of ``value``: the tile plus, for the rows of it
    that this rank owns, every peer's partial of those rows, each added once
    its arrival flag says it is staged (lower-chunk-to-tile lowers it). Rows
    other ranks own are stored unchanged: they are this rank's partials,
    which the runtime sends as before. A module without a reduce-scatter
    store is left alone. The runtime keeps the sends and stops adding
    (``chunk.abi`` gets a ``reduce`` table; see runtime/staging.py).
    """

    name: ClassVar[str] = "fuse-peer-reduction"
    # it replaces the value a store writes, never its address
    preserved_analyses: ClassVar[tuple] = (analyze,)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        deps = query(op, analyze)
        tile_loop = host_exprs.tile_loop(deps.kernel)
        for b in deps.accesses:
            if b.role == "write" and b.plan.collective == "reduce-scatter":
                self._check(b, deps.kernel, tile_loop)
                self._fuse(b)

    @staticmethod
    def _check(b: BoundAccess, kernel: tile.FuncOp, tile_loop: scf.ForOp | None) -> None:
        where = f"fuse-peer-reduction: @{kernel.sym_name.data} stores '{b.access.param}' (plan @{b.plan.sym_name.data})"
        store = b.access.op
        if isinstance(store, tile.DescriptorAtomicOp):
            raise PassFailedException(
                f"{where} with `desc.atomic_{store.kind.data}`: several programs combine into each tile, so no "
                "one of them holds the tile's value to add the peers' partials to; the epilogue reduction needs one "
                "desc.store([row, col], value) per tile (reduce=stream, the default, leaves the add to the runtime)"
            )
        if not isinstance(store, tile.DescriptorStoreOp):
            raise PassFailedException(
                f"{where} through pointers; the epilogue reduction needs a tensor-descriptor store "
                "desc.store([row, col], value), whose tile position it reads"
            )
        if len(store.offsets) != 2:
            raise PassFailedException(f"{where} through a rank-{len(store.offsets)} descriptor; only 2-D tiles are supported")
        if b.dim != ROW_DIM:
            raise PassFailedException(f"{where} in chunks along dim {b.dim}; the epilogue reduction sums row chunks (dim 0)")
        if b.loops and list(b.loops) != [tile_loop]:
            raise PassFailedException(
                f"{where} inside a loop; the epilogue reduction needs one store per tile "
                "(at the top level or in a persistent kernel's tile loop)"
            )
        for c in b.plan.chunks:
            backend = c.backend.data
            if c.src.value.data != c.dst.value.data and backend != "ce":
                hint = " (run select-backend first)" if backend == "unset" else ""
                raise PassFailedException(
                    f"{where}: chunk {c.chunk_id.value.data} has backend {backend}{hint}; the epilogue reduction "
                    "reads the partials the ce backend stages at their owner"
                )

    @staticmethod
    def _fuse(b: BoundAccess) -> None:
        store = b.access.op
        assert isinstance(store, tile.DescriptorStoreOp)
        (row, extent), (col, col_extent) = b.access.desc_spans
        builder = Builder(InsertPoint.before(store))
        plan: PlanOp = b.plan
        reduced = builder.insert(ReduceSpanOp(store.value, row, extent, col, col_extent, plan.sym_name.data,
                                              b.tensor.tensor.data, tile.AnyValueType()))
        reduced.attributes[ORIGIN_ATTR] = ORIGIN
        store.operands[len(store.operands) - 1] = reduced.results[0]  # operands: desc, offsets..., value
