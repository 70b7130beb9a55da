"""Which chunks each tile reads and writes: plan tensors bound to the kernel.

:func:`analyze` binds every plan tensor to the kernel parameter it names and
bounds each access of it along the plan's dim (a :class:`BoundAccess`). The
chunk-dependency-analysis pass records the result as ``chunk.access``
attributes; the later passes query it through the analysis manager
(``manager.query(module, analyze)``), which computes it once per pipeline run.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from syncopate.dialects import tile
from syncopate.dialects.chunk import PlanOp, TensorOp, extent_attr
from syncopate.ir.analysis import access_patterns, host_exprs, index_spans, loop_nesting, ssa_values, unbounded
from syncopate.ir.analysis.access_patterns import Access
from syncopate.ir.analysis.index_spans import Span
from syncopate.ir.analysis.unbounded import Unbounded
from syncopate.ir.contract import CONSUMED, KERNEL_ATTR, PRODUCED
from syncopate.ir.analysis import loaded_rows, mask_bounds
from syncopate.ir.analysis.pointer_uses import MEMORY_OPS, PointerUse, pointer_uses
from syncopate.ir.analysis.ssa_walk import results_reached
from syncopate.ir.locations import describe
from syncopate.ir.plans.launch_extents import launch_extents


@dataclass(frozen=True)
class BoundAccess:
    """An access of a plan tensor: its footprint along the plan's dim."""

    access: Access
    plan: PlanOp
    tensor: TensorOp
    dim: int
    span: Span
    loops: tuple[Operation, ...]  # enclosing loops, outermost first
    invariant: int  # the span is invariant in the innermost `invariant` loops
    stride: str | int | None  # the stride found in the address (None: not known)

    @property
    def role(self) -> str:
        return self.access.role


@dataclass
class ChunkDependencies:
    """The analysis result: the kernel and its plan-tensor accesses."""

    kernel: tile.FuncOp
    plans: list[PlanOp]
    accesses: list[BoundAccess]


def fail(message: str) -> PassFailedException:
    return PassFailedException(f"chunk-dependency-analysis: {message}")


def _describe(op: Operation, kernel: tile.FuncOp) -> str:
    return describe(op)


def find_kernel(module: ModuleOp, plans: list[PlanOp]) -> tile.FuncOp:
    """The tile.func that takes the plans' tensor parameters."""
    funcs = [f for f in module.ops if isinstance(f, tile.FuncOp)]
    if not funcs:
        raise fail("the module has no tile.func (give a Triton kernel)")
    wanted = {name for p in plans for t in p.tensors for name in (t.param.data, t.tensor.data)}
    chosen = module.attributes.get(KERNEL_ATTR)
    if isinstance(chosen, StringAttr):
        named = [f for f in funcs if f.sym_name.data == chosen.data]
        if not named:
            raise fail(f"no kernel named '{chosen.data}' (kernels: {', '.join(f.sym_name.data for f in funcs)})")
        return named[0]
    candidates = [f for f in funcs if wanted & set(f.arg_names)]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        params = sorted({n for f in funcs for n, a in zip(f.arg_names, f.body.block.args) if isinstance(a.type, tile.PointerType)})
        raise fail(
            f"no kernel takes the plan tensor(s) {', '.join(sorted(wanted))}; "
            f"name a pointer parameter with the template's tensor= option (pointer parameters: {', '.join(params)})"
        )
    names = [f.sym_name.data for f in candidates]
    raise fail(
        f"several kernels take the plan tensors ({', '.join('@' + n for n in names)}); name the one to fuse "
        f"with --kernel (e.g. --kernel {names[0]}); the others are emitted unchanged"
    )


def _bind_param(tensor: TensorOp, kernel: tile.FuncOp) -> str:
    """The kernel parameter of a plan tensor; a template's ``tensor=x_ptr``
    names the parameter itself."""
    names = kernel.arg_names
    for candidate in (tensor.param.data, tensor.tensor.data):
        if candidate in names:
            return candidate
    raise fail(
        f"plan tensor '{tensor.tensor.data}' is bound to parameter '{tensor.param.data}', "
        f"which @{kernel.sym_name.data} does not have (parameters: {', '.join(names)})"
    )


def _plan_dim(plan: PlanOp, tensor: str) -> int:
    dims = {c.dim.value.data for c in plan.chunks if c.tensor.data == tensor}
    if len(dims) != 1:
        raise fail(f"plan @{plan.sym_name.data} splits tensor '{tensor}' along several dims {sorted(dims)}")
    return dims.pop()


def _stride_name(term: access_patterns.Term) -> str | int:
    if term.stride is None:
        return 1
    name = ssa_values.param_name(term.stride)
    if name is not None:
        return name
    const = host_exprs.host_expr(term.stride)
    return int(const) if const is not None and const.lstrip("-").isdigit() else "?"


def _in_dim_order(terms: tuple[access_patterns.Term, ...]) -> list[access_patterns.Term]:
    """The terms of one address in the order of the tensor's dims, when the
    plan names no stride: terms whose stride is a kernel parameter in the
    order the kernel declares those parameters (Triton kernels take
    ``*x.stride()``, outermost dim first), then constant strides from the
    largest down to the unit stride (row-major: the innermost dim has the
    smallest), then any other stride; ties keep block-axis order.

    Not the block-axis order alone: a transposed load such as
    ``k_ptr + kv[None, :] * stride_ks + ds[:, None] * stride_kd`` puts the
    sequence (dim 0) on block axis 1."""

    def key(term: access_patterns.Term) -> tuple[int, int, int]:
        stride = ssa_values.strip(term.stride) if term.stride is not None else None
        if isinstance(stride, BlockArgument) and ssa_values.param_name(stride) is not None:
            return (0, stride.index, term.axis)
        name = _stride_name(term)
        return (1, -name, term.axis) if isinstance(name, int) else (2, 0, term.axis)

    return sorted(terms, key=key)


def _span_along(acc: Access, tensor: TensorOp, dim: int, kernel: tile.FuncOp) -> tuple[Span, str | int | None]:
    """The footprint of ``acc`` along logical ``dim`` of ``tensor``, and the
    stride of that dim found in the address: which address term (or row
    offset) is that dim, then its span (:func:`_term_span`)."""
    where = _describe(acc.op, kernel)
    rank = len(tensor.shape.data)
    if acc.desc_spans:
        if dim >= len(acc.desc_spans):
            raise fail(f"{where}: descriptor has {len(acc.desc_spans)} dims, the plan splits dim {dim}")
        offset, block = acc.desc_spans[dim]
        return Span((offset,), block), None
    strides = tensor.stride_values
    if _explicit_stride(tensor, dim):
        acc = _split_constexpr_row(acc, strides[dim])
    named = [t for t in acc.terms if _stride_name(t) == strides[dim]]
    if (not named and _explicit_stride(tensor, dim) and _scalar_row(acc, strides[dim], dim) is None
            and _constexpr_row(acc, strides[dim]) is None):
        found = ", ".join(str(_stride_name(t)) for t in acc.terms) or "none"
        raise fail(f"{where}: the plan's stride={strides[dim]} multiplies no index of the access of '{acc.param}' "
                   f"(its strides: {found}); name the stride parameter of dim {dim}")
    row = _scalar_row(acc, strides[dim], dim) if not named else None
    if row is None and not named and _explicit_stride(tensor, dim):
        row = _constexpr_row(acc, strides[dim])
    if row is not None:
        stride = _named_factor(row, strides[dim]) or _row_stride(row)
        return _row_span(acc, row, stride, where, dim, kernel, _other_strides(acc, tensor, dim)), \
            ssa_values.param_name(stride)
    outer = _outer_rows(acc) if not named else []
    if outer:
        ordered = _in_dim_order_with_rows(acc.terms, outer)
        if dim >= len(ordered):
            raise fail(f"{where}: the address of '{acc.param}' has {len(ordered)} dims, the plan splits dim {dim}")
        if isinstance(ordered[dim], access_patterns.Offset) and len(ordered) > rank and any(t.stride is not None for t in acc.terms):
            # a scalar outside block rows of its own (`head * stride_h + rows * stride_s`):
            # with more address dims than the plan's tensor has, the plan's dim
            # may be either, and the guess decides which rows move
            raise fail(f"{where}: the address of '{acc.param}' has {len(ordered)} dims (strides "
                       f"{', '.join(str(_dim_stride_name(o)) for o in ordered)}), the plan's tensor {rank}; "
                       f"give the plan option stride=<the stride parameter of dim {dim}>")
        picked = ordered[dim]
        if isinstance(picked, access_patterns.Offset):
            stride = _row_stride(picked)
            return _row_span(acc, picked, stride, where, dim, kernel, _other_strides(acc, tensor, dim)), \
                ssa_values.param_name(stride)
        named = [picked]
    if len(named) == 1:
        term = named[0]
    elif len(acc.terms) == rank and sorted(t.axis for t in acc.terms) == list(range(rank)):
        term = _in_dim_order(acc.terms)[dim]
    elif _is_flat(acc) and dim == 0:
        term = acc.terms[0]  # a 1-D tensor: its only index is dim 0
    elif dim == 1 and _is_row_of_matrix(acc):
        term = acc.terms[0]  # `row_ptr + cols`: the columns of a row-major matrix
    else:
        found = ", ".join(f"{_stride_name(t)} (block axis {t.axis})" for t in acc.terms) or "none"
        raise fail(
            f"{where}: cannot tell which address term of '{acc.param}' is dim {dim} "
            f"(terms with strides: {found}); give the plan option stride=<the stride parameter of dim {dim}>"
        )
    return _term_span(acc, term, tensor, dim, kernel, where)


def _term_span(acc: Access, term: access_patterns.Term, tensor: TensorOp, dim: int, kernel: tile.FuncOp,
               where: str) -> tuple[Span, str | int | None]:
    """The span of ``term``, the address term of logical ``dim``: its
    index's bounds (or, for a read through loaded rows, their range), the
    scalar offsets and loop walks that move it, the forms refused when
    they combine (wrapped or clamped indices that also move, stores through
    ``tl.where``), and the mask's bounds where the index alone gives the rows."""
    strides = tensor.stride_values
    loaded = False
    try:
        span = index_spans.span_of(term.index)
    except unbounded.LoadedRows as err:
        if acc.role != "read":
            raise fail(f"{where}: cannot bound the access of '{acc.param}' along dim {dim}: {err}") from None
        # the index's own scalar terms are inside it: the range of the whole index
        lo, extent = loaded_rows.row_range(term.index)
        span, loaded = Span((lo,), extent), True
    except Unbounded as err:
        raise fail(f"{where}: cannot bound the access of '{acc.param}' along dim {dim}: {err}") from None
    stride = _stride_name(term)
    _check_mask(acc, term, tensor, dim, where)
    others = {_stride_name(t) for t in acc.terms if t is not term} | {s for i, s in enumerate(strides) if i != dim}
    shifts = [_shift_along(o, stride, where, acc.param, dim, kernel, others) for o in acc.offsets]
    walks = _walks_along(acc, stride, where, dim, kernel, others)
    moved = [v for v in shifts if v is not None]
    if span.wrap is not None and (moved or walks or acc.role == "write"):
        what = "a store" if acc.role == "write" else "a pointer also moved by a scalar offset or a loop"
        raise fail(f"{where}: '{acc.param}' is accessed through offsets wrapped with `%` along dim {dim} in {what}; "
                   f"only loads of `(start + tl.arange(0, B)) % M` are supported")
    if span.reshaped and (moved or walks):
        raise fail(f"{where}: '{acc.param}' is accessed through a clamped index (`tl.minimum`/`tl.maximum`/"
                   f"`tl.where`) along dim {dim} and also moved along it by a scalar offset or a loop; clamp the "
                   f"whole row index instead (`tl.minimum(start + tl.arange(0, B), M - 1)` with `start` "
                   f"including the offset)")
    if span.otherwise is not None and acc.role == "write":
        raise fail(f"{where}: '{acc.param}' is stored through `tl.where` of its index along dim {dim}, which "
                   f"writes two row ranges; store with `mask=` on the unclamped index instead")
    if not (moved or walks or span.wrap is not None or span.reshaped or loaded):
        # the mask bounds the index itself, and the rows are that index: its bounds are the rows'
        below, above = mask_limits(acc, term, tensor.shape_values[dim], kernel)
        span = replace(span, masked_below=below, masked_from=above)
    return replace(span, lo_terms=(*span.lo_terms, *moved), walks=walks), stride


def mask_limits(acc: Access, term: access_patterns.Term, size: str | int,
                kernel: tile.FuncOp) -> tuple[SSAValue | None, SSAValue | None]:
    """The bounds ``acc``'s mask puts on ``term``'s index, ``(index >= lower,
    index < upper)``, each None when the mask has none. Only kernel
    parameters and integer constants count: a wait placed above the access
    (hoisted out of loops) can use them (insert-signals copies a constant);
    among several upper bounds, the plan's extent ``size`` is preferred."""
    index = ssa_values.strip(term.index)

    def usable(bounds: list[tuple[SSAValue, SSAValue]]) -> list[SSAValue]:
        found = [ssa_values.strip(b) for i, b in bounds if i is index]
        return [b for b in found if (isinstance(b, BlockArgument) and b.owner is kernel.body.block)
                or (isinstance(b, OpResult) and isinstance(b.op, arith.ConstantOp)
                    and isinstance(b.op.value, IntegerAttr))]

    mask = _mask_of(acc.op)
    lower = usable(mask_bounds.bound_values(mask, upper=False))
    upper = usable(mask_bounds.bound_values(mask, upper=True))
    upper.sort(key=lambda b: host_exprs.host_expr(b) != str(size))
    return (lower[0] if lower else None), (upper[0] if upper else None)


def _is_flat(acc: Access) -> bool:
    """The address is ``param + offs`` with one unit-stride index and no
    scalar moved by a runtime stride parameter: a 1-D tensor."""
    return (len(acc.terms) == 1 and acc.terms[0].stride is None
            and not any(_runtime_stride(o) is not None for o in acc.offsets))


def _row_offsets(acc: Access) -> list[access_patterns.Offset]:
    """Scalar offsets ``index * stride`` with a runtime stride parameter and
    an index of one factor. A longer product (``off_hz * HEAD_DIM * N_CTX``)
    scales its index by a length, so it is no row index; ``_shift_along``
    refuses it with the form that works."""
    return [o for o in acc.offsets if _runtime_stride(o) is not None
            and len(_factors(o.left)) + (len(_factors(o.right)) if o.right is not None else 0) <= 2]


def _dim_stride_name(item: access_patterns.Term | access_patterns.Offset) -> str | int | None:
    if isinstance(item, access_patterns.Offset):
        return ssa_values.param_name(_row_stride(item))
    return _stride_name(item)


def _outer_rows(acc: Access) -> list[access_patterns.Offset]:
    """Scalar offsets ``i * s`` whose runtime stride parameter ``s`` no
    block index has (a batch or head offset ``off_b * stride_kb``): each is
    a dim of its own. Empty unless every block index has a stride parameter
    or unit stride, so that all dims can be ordered."""
    term_strides = {ssa_values.param_name(t.stride) for t in acc.terms if t.stride is not None}
    if None in term_strides or any(_stride_name(t) == "?" for t in acc.terms):
        return []
    rows = _row_offsets(acc)
    return [o for o in rows if ssa_values.param_name(_row_stride(o)) not in term_strides]


def _in_dim_order_with_rows(terms: tuple[access_patterns.Term, ...],
                            rows: list[access_patterns.Offset]) -> list[access_patterns.Term | access_patterns.Offset]:
    """Block indices and outer scalar rows in the order the kernel declares
    their stride parameters (outermost dim first), unit strides last."""

    def key(item: access_patterns.Term | access_patterns.Offset) -> tuple[int, int]:
        stride = _row_stride(item) if isinstance(item, access_patterns.Offset) else item.stride
        if stride is None:
            return (1, 0)
        arg = ssa_values.strip(stride)
        return (0, arg.index) if isinstance(arg, BlockArgument) else (1, 0)

    return sorted([*terms, *rows], key=key)


def _is_row_of_matrix(acc: Access) -> bool:
    """``param + row * stride + cols``: one unit-stride block index and one
    scalar moved by a runtime stride parameter."""
    rows = [o for o in acc.offsets if _runtime_stride(o) is not None]
    return len(acc.terms) == 1 and acc.terms[0].stride is None and len(rows) == 1


def _runtime_stride(offset: access_patterns.Offset) -> SSAValue | None:
    """The factor of ``index * stride`` that is a runtime (not constexpr)
    kernel parameter, when exactly one is."""
    if offset.right is None:
        return None
    params = [f for f in (offset.left, offset.right)
              if ssa_values.param_name(f) is not None and not isinstance(ssa_values.strip(f).type, tile.ConstexprType)]
    return params[0] if len(params) == 1 else None


def _row_stride(offset: access_patterns.Offset) -> SSAValue:
    stride = _runtime_stride(offset)
    assert stride is not None
    return stride


def _scalar_row(acc: Access, stride: str | int, dim: int) -> access_patterns.Offset | None:
    """A scalar row index along ``dim``: ``row * stride`` added to the
    pointer (``X += row * stride``, ``x_ptr + row_idx * stride_row``) when
    the address has no block index along ``dim``. It is the offset whose
    stride is the plan's stride of ``dim``; or, for dim 0 with the default
    stride, the only offset moved by a runtime stride parameter while every
    block index has unit stride (a row of a row-major matrix)."""
    rows = _row_offsets(acc)
    named = [o for o in rows if ssa_values.param_name(_row_stride(o)) == stride]
    if named:  # several (`X += row * s; X + (-1) * s`): the others are shifts of it (_row_span adds them)
        return named[0]
    # `row_ptr + cols`: one unit-stride block index (the columns). With a
    # second block index the address already has rows of its own, and the
    # scalar is a shift of them (`off_hz * HEAD_DIM * N_CTX`), not a row.
    if dim == 0 and len(rows) == 1 and len(acc.terms) == 1 and acc.terms[0].stride is None:
        return rows[0]
    return None


def _split_constexpr_row(acc: Access, stride: str | int) -> Access:
    """``acc`` with a row offset pulled out of its unit-stride index when
    that index is ``row * P + cols`` (or ``cols + row * P``) and ``P`` is
    the constexpr parameter the plan names as the stride (Unsloth's
    ``offsets = row_idx * Q_row_stride + col_offsets`` with ``Q_row_stride:
    tl.constexpr``). Unnamed, ``P`` could be a tile size and the sum one
    flat index; named, ``row * P`` moves whole rows, as ``X += row * P``
    does (:func:`_constexpr_row`)."""
    for term in acc.terms:
        index = ssa_values.strip(term.index)
        if term.stride is not None or not (isinstance(index, OpResult) and isinstance(index.op, tile.AddOp)):
            continue
        for row, cols in ((index.op.lhs, index.op.rhs), (index.op.rhs, index.op.lhs)):
            row = ssa_values.strip(row)
            if ssa_values.block_rank(row) != 0 or not (isinstance(row, OpResult) and isinstance(row.op, tile.MulOp)):
                continue
            offset = access_patterns.Offset(row.op.lhs, row.op.rhs, row)
            factor = _named_factor(offset, stride)
            if factor is None or not isinstance(ssa_values.strip(factor).type, tile.ConstexprType):
                continue
            rest = access_patterns.Term(term.axis, ssa_values.strip(cols), None)
            terms = tuple(rest if t is term else t for t in acc.terms)
            return replace(acc, terms=terms, offsets=(*acc.offsets, offset))
    return acc


def _named_factor(offset: access_patterns.Offset, name: str | int) -> SSAValue | None:
    """The factor of ``index * stride`` that is the kernel parameter ``name``."""
    if offset.right is None:
        return None
    found = [f for f in (offset.left, offset.right) if ssa_values.param_name(f) == name]
    return found[0] if len(found) == 1 else None


def _constexpr_row(acc: Access, stride: str | int) -> access_patterns.Offset | None:
    """A scalar row whose stride is the constexpr parameter the plan names
    (``X += row * N`` with ``N: tl.constexpr``, ``stride=N``). Unnamed, a
    constexpr factor is a tile size or a length (``pid * BLOCK``), never
    taken for a row stride; named by the plan, it is one."""
    rows = [o for o in acc.offsets if _named_factor(o, stride) is not None
            and isinstance(ssa_values.strip(_named_factor(o, stride)).type, tile.ConstexprType)
            and len(_factors(o.left)) + len(_factors(o.right)) <= 2]
    return rows[0] if len(rows) == 1 else None


def _other_strides(acc: Access, tensor: TensorOp, dim: int) -> set[str | int]:
    """The strides of the plan tensor's other dims and of the access's block indices."""
    return {_stride_name(t) for t in acc.terms} | {s for i, s in enumerate(tensor.stride_values) if i != dim}


def _row_span(acc: Access, row: access_patterns.Offset, stride: SSAValue, where: str, dim: int,
              kernel: tile.FuncOp, others: set[str | int]) -> Span:
    """``[row, row + 1)``: one row per access (``row`` is ``index * stride``),
    moved by every other scalar offset that moves along ``dim``
    (``X += row * stride_x; tl.load(X + stride_x + cols)`` reads ``row + 1``;
    an offset whose dim cannot be told is refused by :func:`_shift_along`),
    with the bounds the mask puts on that row. A lone parameter added as a
    column (``input_ptrs + d``) is checked at launch (:func:`_in_row_check`)."""
    index = row.right if stride is row.left else row.left
    assert index is not None
    name = ssa_values.param_name(stride) or "?"
    walks = _walks_along(acc, name, where, dim, kernel, set())
    if walks:
        raise fail(f"{where}: '{acc.param}' is indexed by a scalar row and also advanced along dim {dim} by a loop; "
                   f"index the row from the parameter in each iteration (`x_ptr + row * stride`)")
    lengths = [o for o in acc.offsets if o is not row and _length_column(o, name)]
    in_row = _in_row_check(acc, lengths, name, kernel, where) if lengths else None
    shifts = [_shift_along(o, name, where, acc.param, dim, kernel, others) for o in acc.offsets
              if o is not row and o not in lengths and not _column_of_row(o)]
    terms = (index, *(v for v in shifts if v is not None))
    below, above = _row_mask_limits(acc, terms, kernel)
    return Span(terms, _unit(kernel), masked_below=below, masked_from=above, in_row=in_row)


def _column_of_row(offset: access_patterns.Offset) -> bool:
    """A lone scalar that is no kernel parameter added to a scalar row's
    address: a loaded or computed column (``X_ptr + y``, a class index),
    taken to stay inside the row as the row's block columns are."""
    return offset.right is None and ssa_values.param_name(offset.left) is None


def _length_column(offset: access_patterns.Offset, stride: str) -> bool:
    """A lone kernel parameter other than the row stride added to a scalar
    row's address (``input_ptrs + d``: the second half of a row of ``2 *
    d`` columns; ``X + n_cols + cols``: the next row of ``n_cols``). Only
    the launch's values tell the two apart (:func:`_in_row_check`)."""
    name = ssa_values.param_name(offset.left) if offset.right is None else None
    return name is not None and name != stride


def _in_row_check(acc: Access, lengths: list[access_patterns.Offset], stride: str, kernel: tile.FuncOp,
                  where: str) -> tuple[str, str]:
    """The launch-time condition under which ``lengths`` stay inside the
    row: their sum plus the columns' mask bound is at most the row stride
    (``AccessKey.IN_ROW``). Refused where the columns have no such bound."""
    columns = [t for t in acc.terms if t.stride is None]
    upper = mask_limits(acc, columns[0], "", kernel)[1] if len(columns) == 1 else None
    parts = [host_exprs.host_expr(o.left) for o in lengths] + [host_exprs.host_expr(upper) if upper is not None else None]
    if stride == "?" or any(p is None for p in parts):
        names = ", ".join(ssa_values.param_name(o.left) or "?" for o in lengths)
        raise fail(f"{where}: the access of '{acc.param}' adds {names} to a row's address, which stays in the row "
                   f"only if the columns it reaches are below the row stride; its columns have no mask bound "
                   f"(`cols < n`) to tell: mask them, or write the offset as index * <stride parameter>")
    return " + ".join(f"({p})" for p in parts), stride


def _row_mask_limits(acc: Access, terms: tuple[SSAValue, ...],
                     kernel: tile.FuncOp) -> tuple[SSAValue | None, SSAValue | None]:
    """The bounds ``acc``'s mask puts on its scalar row (the sum of
    ``terms``): a comparison of a value whose expression is that row's for
    every element (``row + 1 < n_rows``, also broadcast into a block), with
    a kernel parameter or an integer constant (a wait above the access can
    use it). A tile whose row is masked off reads nothing, so its wait may
    stop at the bound (the last row's neighbour, past the extent)."""
    from syncopate.ir.analysis.symbolic import Symbolic, provably_equal  # sympy: only for masked scalar rows

    mask = _mask_of(acc.op)
    if mask is None:
        return None, None
    values = Symbolic()
    row = sum((values.of(t) for t in terms[1:]), start=values.of(terms[0]))

    def bound(upper: bool) -> SSAValue | None:
        for index, limit in mask_bounds.bound_values(mask, upper=upper):
            limit = ssa_values.strip(limit)
            usable = (isinstance(limit, BlockArgument) and limit.owner is kernel.body.block) or (
                isinstance(limit, OpResult) and isinstance(limit.op, arith.ConstantOp)
                and isinstance(limit.op.value, IntegerAttr))
            if usable and provably_equal(values.of(index), row):
                return limit
        return None

    return bound(upper=False), bound(upper=True)


def _unit(kernel: tile.FuncOp) -> SSAValue:
    """A ``1 : i32`` constant at the top of ``kernel`` (the extent of a
    scalar row), reused when there is one."""
    block = kernel.body.block
    first = block.first_op
    if isinstance(first, arith.ConstantOp) and first.value == IntegerAttr(1, i32):
        return first.result
    one = arith.ConstantOp(IntegerAttr(1, i32))
    Rewriter.insert_op(one, InsertPoint.at_start(block))
    return one.result


def _walks_along(acc: Access, stride: str | int, where: str, dim: int, kernel: tile.FuncOp,
                 others: set[str | int]) -> tuple[index_spans.Walk, ...]:
    """The loop-carried increments of ``acc``'s pointer that move it along
    ``dim``: a shift per iteration of a ``for`` loop; one along another dim
    leaves the footprint on ``dim`` unchanged (hoistable over that loop)."""
    walks = []
    for carried in acc.carried:
        shift = _shift_along(carried.increment, stride, where, acc.param, dim, kernel, others)
        if shift is None:
            continue
        if carried.after:
            raise fail(f"{where}: '{acc.param}' is accessed through a pointer advanced along dim {dim} by a loop "
                       f"before it, so its rows depend on the trip count; index it from the parameter instead")
        if not isinstance(carried.loop, scf.ForOp):
            raise fail(f"{where}: a while loop advances the pointer of '{acc.param}' along dim {dim}, so the rows "
                       f"of an iteration are not known; use a for loop (`for k in range(...)`)")
        walks.append(index_spans.Walk(carried.loop, shift))
    return tuple(walks)


def _factors(value: SSAValue) -> list[SSAValue]:
    """The factors of a product tree ``a * b * c`` (one factor otherwise)."""
    value = ssa_values.strip(value)
    if isinstance(value, OpResult) and isinstance(value.op, tile.MulOp):
        return _factors(value.op.lhs) + _factors(value.op.rhs)
    return [value]


def _inner_stride(name: str, stride: str, kernel: tile.FuncOp, others: set[str | int]) -> bool:
    """``name`` is the stride of a dim inside the rows of ``stride``'s dim:
    the stride of another dim the access or the plan models, or a runtime
    parameter declared after ``stride`` (Triton kernels take ``*x.stride()``,
    outermost first) that the kernel never compares an index with. A
    parameter declared before it may be an outer dim's stride, which moves
    the tile by whole rows (a head offset into an ``(H, S, D)`` tensor): not
    this dim's footprint, and not knowable here. A compared one is a length
    (``cols < n_cols``), and a length times a count moves whole rows of a
    contiguous tensor (``2 * n_cols + cols`` reads two rows on)."""
    if name in others:
        return True
    names = kernel.arg_names
    return stride in names and names.index(name) > names.index(stride) and name not in _compared(kernel)


def _compared(kernel: tile.FuncOp) -> set[str]:
    """The kernel parameters some comparison takes as an operand (lengths and bounds, not strides)."""
    found: set[str] = set()
    for op in kernel.walk():
        if isinstance(op, tile.CmpOp):
            found.update(n for n in (ssa_values.param_name(v) for v in op.operands) if n is not None)
    return found


def _shift_along(offset: access_patterns.Offset, stride: str | int, where: str, param: str, dim: int,
                 kernel: tile.FuncOp, others: set[str | int]) -> SSAValue | None:
    """The scalar ``offset`` moves the tile along ``dim`` (whose stride is
    ``stride``) by the returned value, or along another dim (None).

    ``x * s`` with ``s`` the dim's stride shifts along the dim by ``x``. A
    longer product that contains the dim's stride (``off_hz * HEAD_DIM *
    N_CTX`` with stride ``HEAD_DIM``) also moves whole rows, by a value the
    kernel does not compute on its own: refused with the form that works.
    ``x * s`` with ``s`` a runtime parameter moves along another dim when
    that dim lies inside this one's rows (see :func:`_inner_stride`) or this
    dim has unit stride (the innermost: any stride parameter is an outer
    dim's); a bare scalar or a constant product shifts a unit-stride dim.
    Anything else is an error, not a guess."""
    if offset.right is None:
        if ssa_values.param_name(offset.left) == stride:
            return _unit(kernel)  # the dim's stride itself: one row (`X + stride_x + cols`)
        if stride == 1 and not _runtime_parameter(offset.left):
            return offset.left
        raise fail(f"{where}: the access of '{param}' adds a scalar offset with no stride"
                   + (f" ('{ssa_values.param_name(offset.left)}', a runtime parameter, which may be a row length or "
                      "another dim's stride)" if _runtime_parameter(offset.left) else "")
                   + f"; cannot tell whether it moves along dim {dim} (write it as index * <stride parameter>)")
    factors = (offset.left, offset.right)
    names = [ssa_values.param_name(f) for f in factors]
    for i, name in enumerate(names):
        if name is not None and name == stride:
            return factors[1 - i]
    flat = _factors(offset.left) + _factors(offset.right)
    if isinstance(stride, str) and stride in [ssa_values.param_name(f) for f in flat]:
        rest = " * ".join(f.name_hint or host_exprs.host_expr(f) or "<value>" for f in flat
                         if ssa_values.param_name(f) != stride)
        raise fail(f"{where}: the access of '{param}' adds a product of {len(flat)} factors that contains dim {dim}'s "
                   f"stride {stride}: it moves the tile by whole rows, a number of rows the kernel never computes; "
                   f"write it as ({rest}) * {stride} (then the plan's extent must hold every row it reaches)")
    runtime = [n for f, n in zip(factors, names) if n is not None and not isinstance(f.type, tile.ConstexprType)]
    if runtime and stride == 1:
        return None  # the unit-stride dim is the innermost: a stride parameter moves along an outer dim
    if runtime and isinstance(stride, str):
        outer = [n for n in runtime if not _inner_stride(n, stride, kernel, others)]
        if not outer:
            return None  # times an inner dim's stride: a shift inside the rows
        if dim > 0:
            # declared before the dim's stride: the stride of a dim outside
            # it, which the plan's tensor has (dims 0 .. dim-1); a shift
            # along that dim leaves this dim's footprint alone
            return None
        raise fail(f"{where}: the access of '{param}' adds a scalar times {', '.join(outer)}, which is not the stride "
                   f"of dim {dim} ({stride}) nor of another dim the plan or the access models; it may move the tile "
                   f"by whole rows (a row length times a row count does), so its footprint along dim {dim} is "
                   f"unknown: write the offset as index * <the stride of its dim>")
    if stride == 1 and offset.product is not None:
        return offset.product  # `2 * BLOCK` elements along the unit-stride dim
    raise fail(f"{where}: the access of '{param}' adds a scalar product with no stride parameter of its own; "
               f"cannot tell which dim it moves along (write it as index * <stride parameter>)")


def _runtime_parameter(value: SSAValue) -> bool:
    """A runtime (not constexpr) scalar kernel parameter, seen through retypes."""
    return ssa_values.param_name(value) is not None and isinstance(ssa_values.strip(value).type, tile.ScalarType)


def _explicit_stride(tensor: TensorOp, dim: int) -> bool:
    """The plan named the stride of ``dim`` (not the template's placeholder)."""
    stride = tensor.stride_values[dim]
    return stride != f"stride_{tensor.tensor.data}_{dim}"


def _mask_of(op: Operation) -> SSAValue | None:
    return getattr(op, "mask", None)


def _check_mask(acc: Access, term: access_patterns.Term, tensor: TensorOp, dim: int, where: str) -> None:
    """The plan's extent of ``dim`` must be the bound the kernel's mask puts
    on that dim's index: ``size=N`` against ``rows < M``, or a ``stride=``
    that picks the term masked by ``K``, would synchronise the wrong rows."""
    size = tensor.shape_values[dim]
    if not (isinstance(size, str) and size.isidentifier()):
        return
    bounds = mask_bounds.index_bounds(_mask_of(acc.op))
    mine = {b for b in bounds.get(ssa_values.strip(term.index), ()) if b.isidentifier()}
    if mine and size not in mine:
        bound = ", ".join(sorted(mine))
        masked = [other for other in acc.terms
                  if other is not term and size in bounds.get(ssa_values.strip(other.index), ())]
        stride = str(_stride_name(term))
        taken = f" (the term times {stride})" if stride != "1" else ""
        raise fail(f"{where}: the plan's extent of dim {dim} is {size}, but the index of '{acc.param}' it takes as "
                   f"that dim's{taken} is masked with < {bound}; "
                   f"{_mask_fix(acc.param, size, bound, masked[0] if masked else None, strided=bool(taken))}")
    for other in acc.terms:
        if other is not term and size in bounds.get(ssa_values.strip(other.index), ()) and not mine:
            raise fail(f"{where}: the plan's extent of dim {dim} is {size}, but the kernel masks another dim of "
                       f"'{acc.param}' (stride {_stride_name(other)}) with < {size}; check the plan's dim= and stride=")


def _mask_fix(param: str, size: str, bound: str, masked_by_size: access_patterns.Term | None, strided: bool) -> str:
    """What to write in the plan when the index it takes for its dim is
    masked with ``bound`` instead of its extent ``size``: name the stride
    of the index ``size`` masks (strides declared in another order than
    the dims), or the size ``bound``. A unit-stride index (the columns)
    suggests neither."""
    if masked_by_size is not None:
        return (f"to split the index masked with < {size}, name its stride: `stride={_stride_name(masked_by_size)}` "
                f"(the strides of '{param}' may be declared in another order than its dims); to split the one "
                f"masked with < {bound}, give `size={bound}`")
    if strided:
        return f"give `size={bound}` if that is the dim the plan splits, else size= and stride= of the dim it splits"
    return "give size= and stride= of the dim the plan splits"


def _check_extent(acc: Access, span: Span, loops: tuple[Operation, ...], tensor: TensorOp, dim: int,
                  kernel: tile.FuncOp) -> None:
    """A read whose rows can leave the plan's extent would wait for no chunk
    and read unsynchronised rows (see ``ir/analysis/wait_extent.py``)."""
    from syncopate.ir.analysis.wait_extent import leaves_extent, walk_leaves_extent  # sympy: only for reads

    problem = walk_leaves_extent(span, tensor.shape_values[dim], kernel)
    if problem is not None:
        raise fail(f"{_describe(acc.op, kernel)}: the access of '{acc.param}' along dim {dim}: {problem}, where no "
                   f"chunk lies. Start the pointers at the block the first iteration reads (`offs_n = "
                   f"tl.arange(0, BLOCK_N)`, shifts added to the rows of each load), or compute each iteration's "
                   f"rows from the loop variable (`start_n + offs_n`) with a mask `< {tensor.shape_values[dim]}`")
    problem = leaves_extent(span, loops, tensor.shape_values[dim], kernel)
    if problem is not None:
        raise fail(f"{_describe(acc.op, kernel)}: the access of '{acc.param}' along dim {dim}: {problem}, where no "
                   f"chunk lies, so its wait would return at once and the tile read rows nothing delivered. An "
                   f"offset of whole heads or batches folded into the rows (`(off_hz * N_CTX) * HEAD_DIM`) does "
                   f"this: give it a stride parameter of its own (`off_hz * stride_h`) and plan the dim it moves "
                   f"inside (dim=1 stride=<that dim's stride>), or plan all the rows it reaches (size=<their number>)")


def _unmodeled(use: PointerUse, param: str) -> str:
    where = describe(use.op)
    if isinstance(use.op, tile.CallJitOp):
        return (f"{where}: passes '{param}' to the jit helper @{use.op.callee.root_reference.data}; accesses inside "
                f"helpers are not analysed, so they cannot be synchronised (access '{param}' in the kernel itself)")
    if use.carried:
        return (f"{where}: accesses '{param}' through a pointer carried by a loop or branch (e.g. `p += BLOCK * "
                f"stride` in the loop); its footprint cannot be bounded, so it cannot be synchronised (compute the "
                f"address from '{param}' in the loop: `{param} + (k0 + tl.arange(0, BLOCK))[None, :] * stride`)")
    if isinstance(use.op, MEMORY_OPS) and _chosen_pointer(use.op.ptr):
        return (f"{where}: accesses '{param}' through a pointer chosen by `tl.where`; the analysis cannot tell which "
                f"tensor a lane reads, so it cannot be synchronised (choose the index instead: "
                f"`{param} + tl.where(cond, i, j)`, or access each tensor with its own mask)")
    return f"{where}: accesses '{param}' through an address the analysis does not model; it cannot be synchronised"


def _chosen_pointer(ptr: SSAValue) -> bool:
    """``ptr`` is computed from a ``tl.where`` between pointers."""
    def follow(value: OpResult) -> tuple[SSAValue, ...]:
        pointer_ops = (tile.AddPtrOp, tile.RetypeOp, tile.BroadcastOp, tile.ExpandDimsOp, tile.CallOp)
        return tuple(value.op.operands) if isinstance(value.op, pointer_ops) else ()

    return any(isinstance(v.op, tile.WhereOp) and tile.is_pointer_like(v.type) for v in results_reached(ptr, follow))


def _invariant_depth(span: Span, loops: tuple[Operation, ...]) -> int:
    """How many of the innermost ``loops`` the span does not depend on."""
    depth = 0
    for loop in reversed(loops):
        if any(loop_nesting.is_defined_inside(v, loop) for v in span.values()):
            break
        depth += 1
    return depth


def _rebind(tensor: TensorOp, param: str, dim: int, accesses: list[BoundAccess], kernel: tile.FuncOp) -> None:
    """Write the inferred parameter and stride of ``dim`` into the binding and
    check that the plan's size symbols are kernel parameters."""
    strides = list(tensor.stride_values)
    inferred = {b.stride for b in accesses} - {None, "?"}
    if len(inferred) == 1:
        strides[dim] = inferred.pop()
    tensor.properties["param"] = StringAttr(param)
    tensor.properties["strides"] = ArrayAttr([extent_attr(s) for s in strides])


def _check_symbols(plan: PlanOp, kernel: tile.FuncOp) -> None:
    """Every symbol of the plan's chunks is a scalar parameter, ``W``, or a
    tensor's extent read from its shape at launch (ir/plans/launch_extents.py)."""
    scalars = {n for n, a in zip(kernel.arg_names, kernel.body.block.args) if not isinstance(a.type, tile.PointerType)}
    at_launch = {e.symbol for e in launch_extents(plan, kernel.arg_names)}
    for chunk in plan.chunks:
        for attr in (chunk.offset, chunk.size):
            if isinstance(attr, StringAttr):
                from syncopate.ir.plans.expr import symbols  # sympy: imported only for symbolic extents

                unknown = symbols(attr.data) - scalars - at_launch - {"W"}
                if unknown:
                    raise fail(
                        f"plan @{plan.sym_name.data}: chunk {chunk.chunk_id.value.data} uses symbol(s) "
                        f"{', '.join(sorted(unknown))}, which are neither scalar parameters of @{kernel.sym_name.data} nor "
                        f"a plan tensor's extent; give the template size=<the kernel parameter holding the length of "
                        f"dim {chunk.dim.value.data}>, or size=<a name that is no parameter> to read the length from "
                        f"the launched tensor's shape (scalar parameters: {', '.join(sorted(scalars))})"
                    )


def _check_strides(plan: PlanOp, kernel: tile.FuncOp) -> None:
    """A ``stride=`` the plan names must be a parameter of the kernel."""
    for tensor in plan.tensors:
        for dim, stride in enumerate(tensor.stride_values):
            if isinstance(stride, str) and _explicit_stride(tensor, dim) and stride not in kernel.arg_names:
                raise fail(f"plan @{plan.sym_name.data}: stride={stride} of tensor '{tensor.tensor.data}' is not a "
                           f"parameter of @{kernel.sym_name.data} (parameters: {', '.join(kernel.arg_names)})")


def _bind_host_block_sizes(arg: BlockArgument) -> None:
    """A plan on a host descriptor (a ``TensorDescriptor`` parameter): its
    loads and stores span ``desc.block_shape[d]``, known only at launch.
    Adds a ``tile.desc_block_size`` per dim at the top of the kernel, where
    it dominates every access and wait, unless the kernel has them there."""
    if not isinstance(arg.type, tile.DescriptorType):
        return
    found = access_patterns.top_block_sizes(arg)
    missing = [tile.DescriptorBlockSizeOp(arg, d) for d in range(arg.type.rank.data) if d not in found]
    Rewriter.insert_op(missing, InsertPoint.at_start(arg.owner))


def _check_one_world(plans: list[PlanOp]) -> None:
    """Every plan of one fused kernel runs on the same ranks: a launch has one
    world, so plans for different worlds cannot all hold at once."""
    worlds = {}
    for plan in plans:
        worlds.setdefault(plan.world_size, plan.sym_name.data)
    if len(worlds) > 1:
        shown = ", ".join(f"@{name} world={world}" for world, name in sorted(worlds.items()))
        raise fail(f"the plans of one kernel must share their world, but {shown}: a fused launch runs on one set of "
                   "ranks; give every plan the same world=")


def analyze(module: ModuleOp) -> ChunkDependencies:
    """Bind every plan tensor to the kernel and bound each of its accesses."""
    plans = [op for op in module.ops if isinstance(op, PlanOp)]
    if not plans:
        raise fail("the module has no chunk.plan (give one with overlap-opt --plan SPEC)")
    kernel = find_kernel(module, plans)
    _check_one_world(plans)
    result: list[BoundAccess] = []
    for plan in plans:
        kind = plan.collective
        if kind not in CONSUMED + PRODUCED:
            raise fail(
                f"plan @{plan.sym_name.data}: fusing a '{kind}' is not supported "
                f"(supported: {', '.join(CONSUMED + PRODUCED)})"
            )
        _check_symbols(plan, kernel)
        _check_strides(plan, kernel)
        for tensor in plan.tensors:
            param = _bind_param(tensor, kernel)
            dim = _plan_dim(plan, tensor.tensor.data)
            _bind_host_block_sizes(kernel.body.block.args[kernel.arg_names.index(param)])
            found: list[BoundAccess] = []
            for op in kernel.walk():
                try:
                    acc = access_patterns.access_of(op, {param})
                except Unbounded as err:
                    raise fail(f"{_describe(op, kernel)}: {err}") from None
                if acc is None or acc.param != param:
                    continue
                expected = "read" if kind in CONSUMED else "write"
                if acc.role != expected:
                    raise fail(
                        f"{_describe(op, kernel)}: the kernel {'writes' if acc.role == 'write' else 'reads'} "
                        f"'{param}', the tensor a '{kind}' {'delivers' if expected == 'read' else 'collects'}; "
                        f"only {'loads' if expected == 'read' else 'stores'} of it can be fused"
                    )
                span, stride = _span_along(acc, tensor, dim, kernel)
                loops = tuple(loop_nesting.enclosing_loops(op))
                if acc.role == "read":
                    _check_extent(acc, span, loops, tensor, dim, kernel)
                found.append(BoundAccess(acc, plan, tensor, dim, span, loops, _invariant_depth(span, loops), stride))
            modeled = {b.access.op for b in found}
            for use in pointer_uses(kernel.body.block.args[kernel.arg_names.index(param)]):
                if use.op not in modeled:
                    raise fail(_unmodeled(use, param))
            if not found:
                raise fail(f"plan @{plan.sym_name.data}: @{kernel.sym_name.data} never accesses '{param}'")
            _rebind(tensor, param, dim, found, kernel)
            result.extend(found)
    return ChunkDependencies(kernel, plans, result)
