"""push-all-reduce: every tile pushes its partial to its peers and stores the sum of all ranks' partials."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.builder import Builder, InsertPoint
from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, StringAttr
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.dialects.chunk import PlanOp, PushReduceOp
from syncopate.ir.analysis.chunk_access import BoundAccess, ChunkDependencies, analyze
from syncopate.ir.analysis.manager import query
from syncopate.ir.contract import ABI_ATTR, CONSUMED, ORIGIN_ATTR, AbiKey
from syncopate.ir.locations import describe

ORIGIN = StringAttr("push-all-reduce")


def _fail(message: str) -> PassFailedException:
    return PassFailedException(f"push-all-reduce: {message}")


@dataclass(frozen=True)
class PushAllReducePass(ModulePass):
    """All-reduce inside the kernel: each tile pushes its partial to every peer and stores the full sum.

    Without this pass an all-reduce runs as a reduce-scatter (the tiles
    announce their partial rows, the runtime sums them at their owners)
    followed by a gather of the owners' sums after the kernel. For a small
    output (a decode GEMM: a few rows) both collectives cost more than the
    data; here one kernel does all of it and nothing runs after it.

    Assumes: the module's produced plans are all-reduce plans (a
    reduce-scatter is refused: each rank keeps only its own rows there),
    and the kernel stores the all-reduced tensor exactly once per program,
    through a pointer store ``tl.store(ptrs, value, mask)`` at the top level
    of the kernel (not in a loop or a branch: every program of every rank
    must push once, or its peers wait forever), with the same grid, sizes
    and strides on every rank (an SPMD launch), so tile ``t`` stores the
    same elements on every rank. A descriptor store, an atomic, a store in
    a loop (a persistent kernel's tile loop too), in a branch, or a second
    store of the tensor is refused, naming its ``file.py:LINE``; so is a
    kernel whose tiles are rotated (``tile-reorder{order=rotate}``: the
    helper names a tile by its tile-order entry or its program id).

    Guarantees: the store stores ``chunk.push_reduce value at ptrs mask
    mask`` instead of ``value``. lower-chunk-to-tile lowers it to
    ``syn_push_reduce`` (lowering/device_helpers.py): (1) store ``value`` at
    the same element offsets into each peer's staging slot for this rank and
    this launch's epoch parity, (2) a CTA barrier, then raise the flag
    ``(tile, this rank)`` in each peer's signal pad to the epoch
    (``atomic_max``, release, system scope), (3) wait, bounded by the spin
    limit, until every peer's flag ``(tile, peer)`` in this rank's pad
    reaches the epoch, then a barrier, (4) add the W partials in rank order
    0..W-1 in fp32, this rank's own (rounded to the tensor's dtype, as the
    peers read it) in its place, so every rank computes the same bits. The
    ``chunk.signal_span`` that insert-signals placed after the store stays
    (verify-sync and verify-addresses prove it covers the store's rows, as
    for any produced tensor); lower-chunk-to-tile drops it for a pushed
    plan, whose rows are final on every rank when the store lands, and
    records a ``push`` table, from which the runtime knows to run no
    collective for the plan.

    Why one slot per source and two epochs: a rank writes launch ``e``'s
    partials into slot parity ``e % 2``. It can be at most one launch ahead
    of any peer: to start launch ``e + 1`` its launch ``e`` ended, so each of
    its tiles saw the peers' launch-``e`` flags, so every peer had started
    launch ``e``, which on a stream means its launch ``e - 1`` (the one that
    read parity ``(e + 1) % 2``) had ended. Flags hold the epoch (not a
    count), so they need no reset, and a flag left at ``e - 1`` never passes
    a wait for ``e``. Waiting inside the kernel for other ranks' tiles needs
    every program of the launch resident at once; the runtime refuses a
    grid with more programs than the GPU has SMs (runtime/push.py), and the
    simulator applies the same rule.
    """

    name: ClassVar[str] = "push-all-reduce"
    # it replaces the value a store writes, never its address
    preserved_analyses: ClassVar[tuple] = (analyze,)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        deps = query(op, analyze)
        plans = [p for p in op.ops if isinstance(p, PlanOp)]
        for p in plans:
            if p.collective not in CONSUMED and p.collective != "all-reduce":
                raise _fail(f"plan @{p.sym_name.data} is a {p.collective}: push leaves every rank the full sum, "
                            "but a reduce-scatter leaves each rank only its own rows (use reduce=stream or epilogue)")
        if not any(p.collective == "all-reduce" for p in plans):
            raise _fail(f"@{deps.kernel.sym_name.data} has no all-reduce plan (plans: "
                        f"{', '.join(f'@{p.sym_name.data} {p.collective}' for p in plans) or 'none'}); push sums "
                        "every rank's partial on every rank, which only an all-reduce asks for")
        writes = [b for b in deps.accesses if b.role == "write" and b.plan.collective == "all-reduce"]
        self._check_kernel(deps)
        for b in writes:
            self._check(b, deps, writes)
        for b in writes:
            self._push(b)

    @staticmethod
    def _check_kernel(deps: ChunkDependencies) -> None:
        abi = deps.kernel.attributes.get(ABI_ATTR)
        if isinstance(abi, DictionaryAttr) and AbiKey.ROTATE in abi.data:
            raise _fail(f"@{deps.kernel.sym_name.data} rotates its tiles (tile-reorder order=rotate): a rotated "
                        "program computes a different tile on each rank, and the push names a tile by its "
                        "tile-order entry or program id; use order=arrival or order=none")

    @staticmethod
    def _check(b: BoundAccess, deps: ChunkDependencies, writes: list[BoundAccess]) -> None:
        store = b.access.op
        where = f"{describe(store)}: @{deps.kernel.sym_name.data} stores '{b.access.param}' (plan @{b.plan.sym_name.data})"
        if isinstance(store, (tile.DescriptorStoreOp, tile.DescriptorAtomicOp)):
            raise _fail(f"{where} through a tensor descriptor; push addresses the peers' staging slots at the "
                        "store's element offsets, so it needs a pointer store tl.store(ptrs, value, mask)")
        if not isinstance(store, tile.StoreOp):
            raise _fail(f"{where} with '{store.name}': several programs combine into each element, so no one "
                        "program holds the value to push; push needs one tl.store(ptrs, value, mask) per program")
        if b.loops:
            raise _fail(f"{where} inside a loop ({describe(b.loops[-1])}); push needs one store per program "
                        "at the top level of the kernel (a persistent kernel's tile loop is not supported)")
        if store.parent_block() is not deps.kernel.body.block:
            raise _fail(f"{where} inside a branch ({describe(store.parent_op())}); push needs one store per "
                        "program at the top level of the kernel: a program that skips it never pushes, and its "
                        "peers' tiles would wait for it forever")
        others = [w for w in writes if w.access.op is not store]
        if others:
            raise _fail(f"{where}, and {describe(others[0].access.op)} stores an all-reduced tensor too; push "
                        "raises one flag per tile, so it supports one such store per kernel")

    @staticmethod
    def _push(b: BoundAccess) -> None:
        store = b.access.op
        assert isinstance(store, tile.StoreOp)
        builder = Builder(InsertPoint.before(store))
        pushed = builder.insert(PushReduceOp(store.value, store.ptr, store.mask, b.plan.sym_name.data,
                                             b.tensor.tensor.data, tile.AnyValueType()))
        pushed.attributes[ORIGIN_ATTR] = ORIGIN
        store.operands[1] = pushed.results[0]  # operands: ptr, value, mask
