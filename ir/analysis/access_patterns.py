"""Access patterns: the address of a tile-IR memory access, taken apart.

For a ``tile.load`` / ``tile.store`` / ``tile.atomic_*`` whose pointer is
``param + idx_0[:, None] * s_0 + idx_1[None, :] * s_1 + ...`` (any order and
nesting of ``+``, unit strides allowed, ``tile.broadcast`` / ``tile.retype``
looked through; scalar terms ``x * s`` that move the whole tile, e.g. a
head offset ``head * stride_h``, are kept as :class:`Offset`; a pointer
carried through a loop and advanced by a loop-invariant step as
:class:`Carried`), and for ``tile.desc_load`` / ``tile.desc_store`` /
``tile.desc_atomic`` (a write, like a pointer atomic) on a descriptor made
from ``param``, :func:`access_of` finds the base parameter
and, per block axis, the index and its stride. A descriptor made on the
host (a ``TensorDescriptor`` parameter) spans ``desc.block_shape[d]`` along
dim ``d``: ``tile.desc_block_size`` ops at the top of the kernel
(:func:`host_block_sizes`). The rows each index spans are
:func:`syncopate.ir.analysis.index_spans.span_of`'s.

Anything else is *unbounded*
(:class:`~syncopate.ir.analysis.unbounded.Unbounded`): callers report it
instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import Pure

from syncopate.dialects import tile
from syncopate.ir.analysis import loaded_rows
from syncopate.ir.analysis.loop_nesting import is_loop_invariant
from syncopate.ir.analysis.ssa_values import CLAMPS, HINTS, block_rank, param_name, strip, widens_integer
from syncopate.ir.analysis.ssa_walk import results_reached
from syncopate.ir.analysis.unbounded import Unbounded


@dataclass(frozen=True)
class Term:
    """One ``index * stride`` term of an address: ``index`` varies along block
    ``axis``; ``stride`` is None for a unit stride."""

    axis: int
    index: SSAValue
    stride: SSAValue | None


@dataclass(frozen=True)
class Offset:
    """A scalar term added to every element's address: ``left * right``
    (either may be the stride), or ``left`` alone (``right`` None: unit
    stride). It moves the whole tile along the dim whose stride it holds."""

    left: SSAValue
    right: SSAValue | None
    product: SSAValue | None = None  # ``left * right`` itself


@dataclass(frozen=True)
class Carried:
    """A pointer carried through ``loop`` and advanced by the loop-invariant
    scalar ``increment`` in every iteration (``ptrs += BLOCK_K * stride_k``).
    Inside the loop, iteration ``t`` (counted from 0) accesses ``init + t *
    increment``; ``after`` marks a use of the loop's result (after the last
    iteration, ``t`` = the trip count)."""

    loop: Operation  # scf.for or scf.while
    increment: Offset
    after: bool = False


@dataclass(frozen=True)
class Access:
    """A memory access of kernel parameter ``param``."""

    op: Operation
    param: str
    role: str  # "read" or "write"
    terms: tuple[Term, ...]  # empty for descriptor accesses (see ``desc_spans``)
    desc_spans: tuple[tuple[SSAValue, SSAValue], ...] = ()  # (offset, block size) per dim
    offsets: tuple[Offset, ...] = ()  # scalar terms (whole-tile shifts)
    carried: tuple[Carried, ...] = ()  # loop-carried increments of the pointer


def _is_pointer(value: SSAValue) -> bool:
    value = strip(value)
    if isinstance(value.type, tile.PointerType):
        return True
    if isinstance(value.type, tile.BlockType) and isinstance(value.type.element_type, tile.PointerType):
        return True
    if isinstance(value, OpResult) and isinstance(value.op, tile.AddPtrOp):
        return True
    if isinstance(value, OpResult) and isinstance(value.op, tile.AddOp):
        return _is_pointer(value.op.lhs) or _is_pointer(value.op.rhs)
    return False


def _sum_terms(value: SSAValue) -> list[SSAValue]:
    """Split an offset into its ``index * stride`` terms: a sum of two blocks
    is split, a block plus a scalar (``pid * B + tl.arange(0, B)``) is one
    unit-stride index."""
    value = _widened_scalar(strip(value))
    if isinstance(value, OpResult) and isinstance(value.op, tile.AddOp):
        lhs, rhs = value.op.lhs, value.op.rhs
        if block_rank(lhs) >= 1 and block_rank(rhs) >= 1:
            return _sum_terms(lhs) + _sum_terms(rhs)
        if block_rank(value) == 0 and block_rank(lhs) == 0 and block_rank(rhs) == 0:
            # a batch and head offset summed first (`qvk_offset = off_z * stride_qz + off_h *
            # stride_qh`, the attention tutorial's): each product moves along its own dim
            return _sum_terms(lhs) + _sum_terms(rhs)
        # `row * stride + cols` added at once is `+ row * stride + cols`: a row offset
        # times a runtime stride moves whole rows, it is no part of the unit-stride index
        for scalar, block in ((lhs, rhs), (rhs, lhs)):
            if block_rank(scalar) == 0 and block_rank(block) >= 1 and _is_row_offset(scalar):
                return [scalar, *_sum_terms(block)]
    return [value]


def _widened_scalar(value: SSAValue) -> SSAValue:
    """A scalar sum or product widened to int64 as a whole
    (``(off_z * stride_z + off_h * stride_h).to(tl.int64)``) is that sum:
    a widening cast keeps every integer's value."""
    while (isinstance(value, OpResult) and isinstance(value.op, tile.CastOp) and block_rank(value) == 0
           and widens_integer(value.op) and isinstance(strip(value.op.src), OpResult)
           and isinstance(strip(value.op.src).op, (tile.AddOp, tile.MulOp))):
        value = strip(value.op.src)
    return value


def _is_row_offset(value: SSAValue) -> bool:
    """``x * s`` with ``s`` a runtime (not constexpr) scalar kernel parameter."""
    value = strip(value)
    if not (isinstance(value, OpResult) and isinstance(value.op, tile.MulOp)):
        return False
    return any(param_name(f) is not None and isinstance(strip(f).type, tile.ScalarType)
               for f in (value.op.lhs, value.op.rhs))


def _axis_of(index: SSAValue, rank: int) -> tuple[int, SSAValue]:
    """(block axis, 1-D index) of an index broadcast into a rank-``rank`` block."""
    index = strip(index)
    if rank <= 1:
        return 0, index
    if isinstance(index, OpResult) and isinstance(index.op, tile.ExpandDimsOp) and block_rank(index.op.src) == 1 and rank == 2:
        return 1 - index.op.axis.value.data, strip(index.op.src)
    axis = _expanded_axis(index) if rank == 2 and loaded_rows.reads_memory(index) else None
    if axis is not None:
        return axis, index  # loaded ids computed on after expanding (`ids[:, None] // top_k`): bounded as a whole
    raise Unbounded("an index of a 2-D access is not a 1-D index expanded with [:, None] or [None, :]")


def _expanded_axis(index: SSAValue) -> int | None:
    """The block axis of a 2-D index computed elementwise from 1-D values
    all expanded along the same axis (and scalars), None otherwise."""
    axes: set[int] = set()
    work, seen = [index], set()
    while work:
        value = strip(work.pop())
        if value in seen or block_rank(value) == 0:
            continue
        seen.add(value)
        if not isinstance(value, OpResult) or value.op.regions or not value.op.has_trait(Pure):
            return None
        if isinstance(value.op, tile.ExpandDimsOp) and block_rank(value.op.src) == 1:
            axes.add(1 - value.op.axis.value.data)
        elif isinstance(value.op, (tile.ExpandDimsOp, tile.BroadcastOp, tile.TransOp, tile.ReduceOp, tile.DotOp)):
            return None
        else:
            work.extend(value.op.operands)
    return axes.pop() if len(axes) == 1 else None


def _term(value: SSAValue, rank: int) -> Term:
    value = strip(value)
    if isinstance(value, OpResult) and isinstance(value.op, tile.MulOp):
        lhs, rhs = value.op.lhs, value.op.rhs
        if block_rank(lhs) >= 1 and block_rank(rhs) == 0:
            axis, index = _axis_of(lhs, rank)
            return Term(axis, index, rhs)
        if block_rank(rhs) >= 1 and block_rank(lhs) == 0:
            axis, index = _axis_of(rhs, rank)
            return Term(axis, index, lhs)
        what = "two blocks" if block_rank(lhs) and block_rank(rhs) else "two scalars"
        raise Unbounded(f"an address term multiplies {what} (not index * stride)")
    if block_rank(value) == 0:
        raise Unbounded("a scalar offset is added to the base pointer")
    axis, index = _axis_of(value, rank)
    return Term(axis, index, None)


PointerTerms = tuple[str | None, list[SSAValue], list[tuple[Operation, int, bool]]]


def _pointer_terms(ptr: SSAValue) -> PointerTerms:
    """(base parameter, offset terms, the loops that carry it: (loop, index, after))."""
    ptr = strip(ptr)
    if isinstance(ptr, OpResult) and isinstance(ptr.op, tile.AddPtrOp):
        base, offsets, carried = _pointer_terms(ptr.op.ptr)
        return base, offsets + _sum_terms(ptr.op.offset), carried
    if isinstance(ptr, OpResult) and isinstance(ptr.op, tile.AddOp):
        # `p + a + b` where the frontend could not type `p + a` as a pointer
        lhs, rhs = ptr.op.lhs, ptr.op.rhs
        if _is_pointer(rhs) and not _is_pointer(lhs):
            lhs, rhs = rhs, lhs
        if _is_pointer(lhs):
            base, offsets, carried = _pointer_terms(lhs)
            return base, offsets + _sum_terms(rhs), carried
    carried_through = _loop_carried(ptr)
    if carried_through is not None:
        loop, index, after = carried_through
        base, offsets, carried = _pointer_terms(_loop_init(loop, index))
        if base is None:
            return None, [], []
        return base, offsets, carried + [carried_through]
    return param_name(ptr), [], []


def _loop_carried(value: SSAValue) -> tuple[Operation, int, bool] | None:
    """(loop, index of the carried value, used after the loop) when ``value``
    is a loop's iter arg inside its body, or the loop's result."""
    if isinstance(value, BlockArgument):
        loop = value.owner.parent_op()
        if isinstance(loop, scf.ForOp) and value.index >= 1:
            return loop, value.index - 1, False
        if isinstance(loop, scf.WhileOp):
            return loop, value.index, False
        return None
    if isinstance(value, OpResult) and isinstance(value.op, (scf.ForOp, scf.WhileOp)):
        return value.op, value.index, True
    return None


def _loop_init(loop: Operation, index: int) -> SSAValue:
    return loop.iter_args[index] if isinstance(loop, scf.ForOp) else loop.operands[index]  # type: ignore[attr-defined]


def _increments(loop: Operation, index: int) -> list[SSAValue]:
    """The scalar steps ``s`` of ``ptrs += s`` (one per augmented assignment)
    that the body of ``loop`` adds to carried pointer ``index``; raises
    :class:`Unbounded` unless the yielded pointer is the iter arg plus
    loop-invariant scalars."""
    if isinstance(loop, scf.ForOp):
        arg, body = loop.body.block.args[index + 1], loop.body.block
    else:
        assert isinstance(loop, scf.WhileOp)
        before, body = loop.before_region.block, loop.after_region.block
        condition = before.last_op
        if not isinstance(condition, scf.ConditionOp) or list(condition.args) != list(before.args):
            raise Unbounded("a pointer carried through a while loop whose condition reorders its values")
        arg = body.args[index]
    terminator = body.last_op
    assert isinstance(terminator, scf.YieldOp)
    value = strip(terminator.arguments[index])
    steps: list[SSAValue] = []
    while isinstance(value, OpResult):
        if isinstance(value.op, tile.AddPtrOp):
            steps.append(value.op.offset)
            value = strip(value.op.ptr)
        elif isinstance(value.op, tile.AddOp) and (strip(value.op.lhs) is arg or _is_pointer(value.op.lhs)):
            # `ptrs + step` where the frontend typed the carried pointer as !tile.any
            steps.append(value.op.rhs)  # type: ignore[union-attr]
            value = strip(value.op.lhs)  # type: ignore[union-attr]
        else:
            break
    if value is not arg:
        raise Unbounded("a loop-carried pointer is replaced in the loop by something other than itself plus a step "
                        "(write `ptrs += step`)")
    for step in steps:
        if block_rank(step) != 0:
            raise Unbounded("a loop-carried pointer is advanced by a block, not a scalar step")
        if not is_loop_invariant(step, loop):
            raise Unbounded("a loop-carried pointer is advanced by a step computed inside the loop "
                            "(compute the step before the loop)")
    return steps[::-1]


def top_block_sizes(desc: BlockArgument) -> dict[int, SSAValue]:
    """dim -> the first ``tile.desc_block_size`` of host descriptor ``desc``
    along it among the ops at the top of its kernel's body (before any
    region op, so it dominates every access and wait)."""
    sizes: dict[int, SSAValue] = {}
    for op in desc.owner.ops:
        if op.regions:
            break
        if isinstance(op, tile.DescriptorBlockSizeOp) and op.desc is desc:
            sizes.setdefault(op.dim.value.data, op.res)
    return sizes


def host_block_sizes(desc: BlockArgument) -> tuple[SSAValue, ...] | None:
    """The block size of host descriptor ``desc`` along each dim
    (:func:`top_block_sizes`); None when a dim has none
    (chunk-dependency-analysis adds them)."""
    sizes = top_block_sizes(desc)
    rank = desc.type.rank.data  # type: ignore[attr-defined]
    return tuple(sizes[d] for d in range(rank)) if len(sizes) == rank else None


def access_of(op: Operation, params: set[str] | None = None) -> Access | None:
    """The :class:`Access` of a memory op, None for other ops, a pointer that
    is not rooted at a kernel parameter or one not in ``params``; raises
    :class:`Unbounded` for an access rooted at such a parameter whose address
    has another form."""
    if isinstance(op, (tile.DescriptorLoadOp, tile.DescriptorStoreOp, tile.DescriptorAtomicOp)):
        desc = strip(op.desc)
        host = param_name(desc)
        if host is not None and (params is None or host in params):
            assert isinstance(desc, BlockArgument)
            sizes = host_block_sizes(desc)
            if sizes is None:
                raise Unbounded(f"the block shape of '{host}', a tensor descriptor made on the host, is not bound "
                                "(run chunk-dependency-analysis, which binds it to the launch's TensorDescriptor)")
            role = "read" if isinstance(op, tile.DescriptorLoadOp) else "write"
            return Access(op, host, role, (), tuple(zip(op.offsets, sizes)))
        if not (isinstance(desc, OpResult) and isinstance(desc.op, tile.MakeTensorDescriptorOp)):
            return None
        param = param_name(desc.op.base)
        if param is None or (params is not None and param not in params):
            return None
        role = "read" if isinstance(op, tile.DescriptorLoadOp) else "write"
        spans = tuple(zip(op.offsets, desc.op.block_shape))
        return Access(op, param, role, (), spans)
    if isinstance(op, tile.LoadOp):
        role = "read"
    elif isinstance(op, tile.StoreOp):
        role = "write"
    elif isinstance(op, (tile.AtomicRMWOp, tile.AtomicCASOp)):
        role = "write"
    else:
        return None
    param, offsets, carried = _pointer_terms(op.ptr)
    if param is None or (params is not None and param not in params):
        return None
    call = unmodelled_call(op.ptr)
    if call is not None:
        raise Unbounded(
            f"access of '{param}': its address calls `{call.callee.data}`, which this analysis does not model and "
            "whose result may be a block (not a scalar offset); compute the "
            "address from `tl.arange`, `tl.program_id`, scalars and the supported clamps and `tl.where`"
        )
    rank = block_rank(op.ptr)
    scalars = tuple(_offset(v) for v in offsets if block_rank(v) == 0)
    try:
        terms = tuple(_term(v, rank) for v in offsets if block_rank(v) != 0)
        steps = tuple(Carried(loop, _offset(inc), after) for loop, index, after in carried
                      for inc in _increments(loop, index))
    except Unbounded as err:
        raise Unbounded(f"access of '{param}': {err}") from None
    return Access(op, param, role, terms, offsets=scalars, carried=steps)


def unmodelled_call(ptr: SSAValue) -> tile.CallOp | None:
    """The first ``tile.call`` in the address ``ptr`` whose callee the analysis
    does not model and whose result is not known to be a scalar
    (``tl.zeros_like(rows)``, ``tl.math.abs(offs)``), None when there is none.
    A call typed as a scalar (``tl.abs(num_m - first_m)``) is a scalar offset
    whose host value is unknown (``"?"``: the tile waits for every chunk).
    Loaded values end the walk (their rows are bounded as
    loaded rows), and so does the condition of a ``tl.where`` (an
    unrecognised condition only widens the rows)."""
    def follow(value: OpResult) -> tuple[SSAValue, ...]:
        op = value.op
        if isinstance(op, (tile.LoadOp, tile.DescriptorLoadOp)) or op.regions:
            return ()
        return (op.true_value, op.false_value) if isinstance(op, tile.WhereOp) else tuple(op.operands)

    for value in results_reached(ptr, follow):
        op = value.op
        if isinstance(op, tile.CallOp) and op.callee.data not in MODELLED_CALLS and tile.rank_of(value.type) != 0:
            return op
    return None


def _offset(value: SSAValue) -> Offset:
    value = _widened_scalar(strip(value))
    if isinstance(value, OpResult) and isinstance(value.op, tile.MulOp):
        return Offset(value.op.lhs, value.op.rhs, value)
    return Offset(value, None)


# calls the address analysis models (clamps, hints, the host's min/max); any other
# call in the address of a planned tensor is refused (:func:`unmodelled_call`)
MODELLED_CALLS = frozenset((*CLAMPS, "tl.clamp", *HINTS, "min", "max"))
