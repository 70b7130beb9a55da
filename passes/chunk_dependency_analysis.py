"""chunk-dependency-analysis: which chunks each tile reads and writes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, SymbolRefAttr, i64
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.ir.analysis import host_exprs, index_spans
from syncopate.ir.analysis.chunk_access import BoundAccess, analyze
from syncopate.ir.analysis.manager import query
from syncopate.ir.contract import ACCESS_ATTR, FLAT_TILE_LOOP_ATTR, TILE_LOOP_ATTR, TILE_STEP_ATTR, AccessKey
from syncopate.ir.locations import describe


def _access_attr(b: BoundAccess) -> DictionaryAttr:
    lo = b.span.lo_host_expr()
    extent = host_exprs.host_expr(b.span.extent)
    ranges = index_spans.intervals(b.span, lo, index_spans.HostArith()) if b.span.reshaped else [(lo, extent)]
    (lo, extent), rest = ranges[0], ranges[1:]
    fields: dict[str, Attribute] = {
        AccessKey.PLAN: SymbolRefAttr(b.plan.sym_name.data),
        AccessKey.TENSOR: StringAttr(b.tensor.tensor.data),
        AccessKey.DIM: IntegerAttr(b.dim, i64),
        AccessKey.ROLE: StringAttr(b.role),
        AccessKey.LO: StringAttr(lo if lo is not None else "?"),
        AccessKey.EXTENT: StringAttr(extent if extent is not None else "?"),
        AccessKey.LOOPS: IntegerAttr(len(b.loops), i64),
        AccessKey.INVARIANT: IntegerAttr(b.invariant, i64),
    }
    if b.span.in_row is not None:
        fields[AccessKey.IN_ROW] = StringAttr(b.span.in_row[0])
        fields[AccessKey.ROW_STRIDE] = StringAttr(b.span.in_row[1])
    if b.span.wrap is not None:
        wrap = host_exprs.host_expr(b.span.wrap)
        fields[AccessKey.WRAP] = StringAttr(wrap if wrap is not None else "?")
    for other_lo, other_extent in rest:  # the row of the lanes a `tl.where` redirects
        fields[AccessKey.ELSE_LO] = StringAttr(other_lo if other_lo is not None else "?")
        fields[AccessKey.ELSE_EXTENT] = StringAttr(other_extent if other_extent is not None else "?")
    return DictionaryAttr(fields)


def _check_made_pointers(module: ModuleOp, kernel: tile.FuncOp) -> None:
    """Only accesses through a plan's own parameter are waited for or
    announced. A pointer made from an integer (``tl.load(table +
    g).to(tl.pointer_type(tl.float16))``, a grouped GEMM's pointer table) may
    hold the planned tensor's address, and its accesses would race with the
    communication; the analysis cannot tell where it points, so it is
    refused in a fused kernel and in the jit helpers it calls."""
    funcs = {f.sym_name.data: f for f in module.walk() if isinstance(f, tile.FuncOp)}
    todo, seen = [kernel], {kernel.sym_name.data}
    while todo:
        for o in todo.pop().walk():
            if isinstance(o, tile.CallJitOp) and o.callee.root_reference.data not in seen:
                seen.add(o.callee.root_reference.data)
                todo.extend(f for f in [funcs.get(o.callee.root_reference.data)] if f is not None)
            elif isinstance(o, tile.CallOp) and o.callee.data == "tl.pointer_type":
                raise PassFailedException(
                    f"chunk-dependency-analysis: {describe(o)}: @{kernel.sym_name.data} makes a pointer from an "
                    "integer (`tl.pointer_type`); such a pointer may hold the address of a tensor a plan moves, "
                    "and its accesses would have no wait or signal; pass that tensor as a pointer argument of "
                    "its own"
                )


def _check_host_rows(b: BoundAccess, attr: DictionaryAttr) -> None:
    """A produced chunk is complete when as many tiles have signalled it as
    the host counts writing it, so the host must know each store's rows: a
    store whose rows it cannot evaluate (``?``: a row block read from memory,
    or a value the analysis does not follow) would be counted as writing every chunk, while its tile signals only the
    chunk its rows hit, and the chunk would never be announced."""
    keys = (AccessKey.LO, AccessKey.EXTENT, AccessKey.WRAP, AccessKey.ELSE_LO, AccessKey.ELSE_EXTENT)
    if any(key in attr.data and attr.data[key].data == "?" for key in keys):
        raise PassFailedException(
            f"chunk-dependency-analysis: {describe(b.access.op)}: the rows this access writes to "
            f"'{b.tensor.tensor.data}' (plan @{b.plan.sym_name.data}) depend on a value the host cannot compute "
            "(one read from memory, or a result the analysis does not follow); the host counts the tiles that "
            "write each chunk to know when it is complete, so the rows of a store must be computed from program "
            "ids, parameters and constants (e.g. `pid_m = tl.program_id(0)`, not `tl.load(table + tl.program_id(0))`)"
        )


@dataclass(frozen=True)
class ChunkDependencyAnalysisPass(ModulePass):
    """Find the chunks each tile reads or writes (an analysis: attributes only).

    Assumes: the module holds one kernel (tile.func) that takes the tensors
    of one or more chunk.plan ops (the template's ``tensor=``, e.g.
    ``tensor=a_ptr``), or names it in ``chunk.kernel`` (overlap-opt
    ``--kernel``) when several do; every access of such a parameter is
    ``param + idx0[:, None]*s0 + idx1[None, :]*s1`` (unit strides, any
    order), possibly plus scalar rows ``row * stride`` and carried through
    loops (``ptrs += step``, a loop-invariant scalar step), or a
    tensor-descriptor load/store (made in the kernel, or on the host: a
    ``TensorDescriptor`` parameter, whose loads and stores span
    ``desc.block_shape[d]``); its index along the plan's dim is
    ``scalar + tl.arange(0, BLOCK)`` (value hints ``tl.multiple_of`` /
    ``tl.max_contiguous`` looked through), that index ``% M`` (a wrapped
    range, loads only, offsets ``>= 0``), that index clamped by scalars
    (``tl.minimum`` / ``tl.maximum`` / ``tl.clamp``: the clamped range) or
    passed through ``tl.where(cond, offs, row)`` (loads only: the kept rows
    plus ``row``), a scalar row ``row * stride`` (the range ``[row, row +
    1)``), or, for loads, a block of row ids computed from loaded data
    (MoE routing: the range ``[min, max + 1)`` of the ids, see
    ``ir/analysis/loaded_rows.py``). A pointer advanced along the plan's dim
    by a ``for`` loop moves the range by the step each iteration; advanced
    along another dim, the range is invariant in that loop. A 1-D access
    (one unit-stride index, no stride parameter) is dim 0. The scalar may be
    anything the kernel computes (program ids, loop variables, loaded values).
    A persistent kernel's tile loop (``for tile in range(tl.program_id(0),
    count, step)``, see ``host_exprs.tile_loop``) counts as a 1-D grid of
    ``count`` tiles: its loop variable is ``pid0`` in the host expressions,
    and the kernel gets ``chunk.tile_loop = "<count>"`` and ``chunk.tile_step =
    "<step>"`` (the launch checks that each tile runs exactly once).
    So does a persistent kernel's one flat loop over (tile, k-step) pairs
    (the older persistent-matmul tutorial: ``ki`` wrapped with
    ``tl.where(ki == k_tiles - 1, 0, ki + 1)``, ``tile_id += NUM_SMS`` under
    ``if ki == 0:``, see ``host_exprs.FlatTileLoop``): the tile's id is
    ``pid0``, a value the ``ki == 0`` branch carries through the loop is
    what it computed for the tile, and the kernel gets
    ``chunk.flat_tile_loop = {lb, ub, first, step, k_steps}``, from which
    each launch lists every program's tiles (none when ``k_tiles == 0``)
    and checks they are each tile once.
    The term of the plan's dim is the one whose stride is the dim's stride
    (the plan's ``stride=`` or its default name); failing that, terms (and
    scalar rows whose stride parameter no block index has, e.g. a batch
    offset) are taken in the order the kernel declares their stride
    parameters, then constant strides largest first (row-major), never by
    block axis alone, so transposed loads work.

    Guarantees: each such access gets ``chunk.access = {plan, tensor, dim,
    role, lo, extent, loops, invariant}`` (plus ``wrap``, the modulus, for a
    wrapped range; ``else_lo`` / ``else_extent``, the row a ``tl.where``
    redirects lanes to; a clamped range's ``lo`` / ``extent`` use
    ``min`` / ``max``; a scalar row's extent is a ``1 : i32`` constant the pass
    adds at the top of the kernel; loaded row ids get their range as ops
    right after the ids, marked ``tile.origin``; a host descriptor's extent is a
    ``tile.desc_block_size`` per dim it adds there, unless the kernel reads
    ``desc.block_shape[d]`` there itself, and the host symbol
    ``<param>__block_shape_<d>`` a launch binds): ``lo``/``extent`` are host
    expressions over ``pid0..2`` and kernel parameters (``?`` where they
    depend on loaded data or loop variables), ``loops`` how many loops
    enclose the access and ``invariant`` how many of them (innermost first)
    the footprint does not depend on. The plan's binding is rewritten to the
    kernel's parameter and the stride parameter found in the address. An
    access it cannot bound, a write to a gathered tensor, a read of a
    reduce-scattered one, a read whose rows can leave the plan's extent
    (they move by at least the extent per program id or loop iteration, e.g.
    a head offset ``(off_hz * N_CTX) * stride`` with ``size=N_CTX``, or start
    past it at the first tile, or rows walked by loop-carried pointers whose
    start is not provably below the extent in the loop's last iteration; see
    ``ir/analysis/wait_extent.py``: its wait would meet no chunk), plans of
    different worlds, plan symbols that are not kernel parameters, a store
    whose rows the host cannot evaluate (a row block read from memory: the
    host counts each produced chunk's writing tiles), or a pointer made from
    an integer (``.to(tl.pointer_type(...))``, which may address a planned
    tensor) are errors naming the op; nothing is guessed. ``syncopate.ir.deps`` turns the
    attributes into a networkx tile -> chunk graph for concrete sizes.
    """

    name: ClassVar[str] = "chunk-dependency-analysis"
    # attributes only: the accesses and their address arithmetic stay as they are
    preserved_analyses: ClassVar[tuple] = (analyze,)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        deps = query(op, analyze)
        _check_made_pointers(op, deps.kernel)
        loop = host_exprs.tile_loop(deps.kernel)
        flat = host_exprs.flat_tile_loop(deps.kernel) if loop is None else None
        for b in deps.accesses:
            attr = _access_attr(b)
            # a store in any other loop is refused by insert-signals, which names the loop
            if b.role != "read" and (list(b.loops) in ([], [loop]) or (flat is not None and list(b.loops) == [flat.loop])):
                _check_host_rows(b, attr)
            b.access.op.attributes[ACCESS_ATTR] = attr
        if flat is not None:
            fields = {"lb": flat.loop.lb, "ub": flat.loop.ub, "first": flat.init, "step": flat.step,
                      "k_steps": flat.k_steps}
            deps.kernel.attributes[FLAT_TILE_LOOP_ATTR] = DictionaryAttr(
                {k: StringAttr(host_exprs.launch_expr(v)) for k, v in fields.items()})  # flat_tile_loop checked them
        else:
            deps.kernel.attributes.pop(FLAT_TILE_LOOP_ATTR, None)
        if loop is not None:
            deps.kernel.attributes[TILE_LOOP_ATTR] = StringAttr(host_exprs.host_expr(loop.ub))  # tile_loop checked it
            deps.kernel.attributes[TILE_STEP_ATTR] = StringAttr(host_exprs.host_expr(loop.step))
        else:
            deps.kernel.attributes.pop(TILE_LOOP_ATTR, None)
            deps.kernel.attributes.pop(TILE_STEP_ATTR, None)
