"""chunk-dependency-analysis: which chunks each tile reads and writes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from syncopate.dialects import tile
from syncopate.dialects.chunk import PlanOp, TensorOp, extent_attr
from syncopate.ir import footprint, mask_bounds
from syncopate.ir.deps import KERNEL_ATTR, TILE_LOOP_ATTR
from syncopate.ir.footprint import Access, Span, Unbounded
from syncopate.ir.locations import describe
from syncopate.ir.plans.expr import symbols
from syncopate.ir.pointer_uses import PointerUse, pointer_uses
from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

ACCESS_ATTR = "chunk.access"

# collective kind -> role of the kernel's accesses to the plan's tensor
CONSUMED = ("all-gather", "all-to-all", "ring-exchange")
PRODUCED = ("reduce-scatter",)


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


def _stride_name(term: footprint.Term) -> str | int:
    if term.stride is None:
        return 1
    name = footprint.param_name(term.stride)
    if name is not None:
        return name
    const = footprint.host_expr(term.stride)
    return int(const) if const is not None and const.lstrip("-").isdigit() else "?"


def _in_dim_order(terms: tuple[footprint.Term, ...]) -> list[footprint.Term]:
    """The terms of one address in the order of the tensor's dims, when the
    plan names no stride: terms whose stride is a kernel parameter in the
    order the kernel declares those parameters (Triton kernels take
    ``*x.stride()``, outermost dim first), then constant strides from the
    largest down to the unit stride (row-major: the innermost dim has the
    smallest), then any other stride; ties keep block-axis order.

    Not the block-axis order alone: a transposed load such as
    ``k_ptr + kv[None, :] * stride_ks + ds[:, None] * stride_kd`` puts the
    sequence (dim 0) on block axis 1."""

    def key(term: footprint.Term) -> tuple[int, int, int]:
        stride = footprint.strip(term.stride) if term.stride is not None else None
        if isinstance(stride, BlockArgument) and footprint.param_name(stride) is not None:
            return (0, stride.index, term.axis)
        name = _stride_name(term)
        return (1, -name, term.axis) if isinstance(name, int) else (2, 0, term.axis)

    return sorted(terms, key=key)


def _span_along(acc: Access, tensor: TensorOp, dim: int, kernel: tile.FuncOp) -> tuple[Span, str | int | None]:
    """The footprint of ``acc`` along logical ``dim`` of ``tensor``, and the
    stride of that dim found in the address."""
    where = _describe(acc.op, kernel)
    rank = len(tensor.shape.data)
    if acc.desc_spans:
        if dim >= len(acc.desc_spans):
            raise fail(f"{where}: descriptor has {len(acc.desc_spans)} dims, the plan splits dim {dim}")
        offset, block = acc.desc_spans[dim]
        return Span((offset,), block), None
    strides = tensor.stride_values
    named = [t for t in acc.terms if _stride_name(t) == strides[dim]]
    if not named and _explicit_stride(tensor, dim) and _scalar_row(acc, strides[dim], dim) is None:
        found = ", ".join(str(_stride_name(t)) for t in acc.terms) or "none"
        raise fail(f"{where}: the plan's stride={strides[dim]} multiplies no index of the access of '{acc.param}' "
                   f"(its strides: {found}); name the stride parameter of dim {dim}")
    row = _scalar_row(acc, strides[dim], dim) if not named else None
    if row is not None:
        return _row_span(acc, row, where, dim, kernel), footprint.param_name(_row_stride(row))
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
    try:
        span = footprint.span_of(term.index)
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
    return Span((*span.lo_terms, *moved), span.extent, walks, span.wrap), stride


def _is_flat(acc: Access) -> bool:
    """The address is ``param + offs`` with one unit-stride index and no
    scalar moved by a runtime stride parameter: a 1-D tensor."""
    return (len(acc.terms) == 1 and acc.terms[0].stride is None
            and not any(_runtime_stride(o) is not None for o in acc.offsets))


def _is_row_of_matrix(acc: Access) -> bool:
    """``param + row * stride + cols``: one unit-stride block index and one
    scalar moved by a runtime stride parameter."""
    rows = [o for o in acc.offsets if _runtime_stride(o) is not None]
    return len(acc.terms) == 1 and acc.terms[0].stride is None and len(rows) == 1


def _runtime_stride(offset: footprint.Offset) -> SSAValue | None:
    """The factor of ``index * stride`` that is a runtime (not constexpr)
    kernel parameter, when exactly one is."""
    if offset.right is None:
        return None
    params = [f for f in (offset.left, offset.right)
              if footprint.param_name(f) is not None and not isinstance(footprint.strip(f).type, tile.ConstexprType)]
    return params[0] if len(params) == 1 else None


def _row_stride(offset: footprint.Offset) -> SSAValue:
    stride = _runtime_stride(offset)
    assert stride is not None
    return stride


def _scalar_row(acc: Access, stride: str | int, dim: int) -> footprint.Offset | None:
    """A scalar row index along ``dim``: ``row * stride`` added to the
    pointer (``X += row * stride``, ``x_ptr + row_idx * stride_row``) when
    the address has no block index along ``dim``. It is the offset whose
    stride is the plan's stride of ``dim``; or, for dim 0 with the default
    stride, the only offset moved by a runtime stride parameter while every
    block index has unit stride (a row of a row-major matrix)."""
    rows = [o for o in acc.offsets if _runtime_stride(o) is not None]
    named = [o for o in rows if footprint.param_name(_row_stride(o)) == stride]
    if len(named) == 1:
        return named[0]
    if dim == 0 and len(rows) == 1 and acc.terms and all(t.stride is None for t in acc.terms):
        return rows[0]
    return None


def _row_span(acc: Access, row: footprint.Offset, where: str, dim: int, kernel: tile.FuncOp) -> Span:
    """``[row, row + 1)``: one row per access."""
    stride = _row_stride(row)
    index = row.right if stride is row.left else row.left
    assert index is not None
    walks = _walks_along(acc, footprint.param_name(stride) or "?", where, dim, kernel, set())
    if walks:
        raise fail(f"{where}: '{acc.param}' is indexed by a scalar row and also advanced along dim {dim} by a loop; "
                   f"index the row from the parameter in each iteration (`x_ptr + row * stride`)")
    return Span((index,), _unit(kernel))


def _unit(kernel: tile.FuncOp) -> SSAValue:
    """A ``1 : i32`` constant at the top of ``kernel`` (the extent of a
    scalar row), reused when there is one."""
    block = kernel.body.block
    first = block.first_op
    if isinstance(first, arith.ConstantOp) and first.value == IntegerAttr(1, i32):
        return first.result
    one = arith.ConstantOp(IntegerAttr(1, i32))
    block.insert_op_before(one, first) if first is not None else block.add_op(one)
    return one.result


def _walks_along(acc: Access, stride: str | int, where: str, dim: int, kernel: tile.FuncOp,
                 others: set[str | int]) -> tuple[footprint.Walk, ...]:
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
        walks.append(footprint.Walk(carried.loop, shift))
    return tuple(walks)


def _factors(value: SSAValue) -> list[SSAValue]:
    """The factors of a product tree ``a * b * c`` (one factor otherwise)."""
    value = footprint.strip(value)
    if isinstance(value, OpResult) and isinstance(value.op, tile.MulOp):
        return _factors(value.op.lhs) + _factors(value.op.rhs)
    return [value]


def _inner_stride(name: str, stride: str, kernel: tile.FuncOp, others: set[str | int]) -> bool:
    """``name`` is the stride of a dim inside the rows of ``stride``'s dim:
    the stride of another dim the access or the plan models, or a runtime
    parameter declared after ``stride`` (Triton kernels take ``*x.stride()``,
    outermost first). A parameter declared before it may be an outer dim's
    stride, which moves the tile by whole rows (a head offset into an
    ``(H, S, D)`` tensor): not this dim's footprint, and not knowable here."""
    if name in others:
        return True
    names = kernel.arg_names
    return stride in names and names.index(name) > names.index(stride)


def _shift_along(offset: footprint.Offset, stride: str | int, where: str, param: str, dim: int,
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
        if stride == 1:
            return offset.left
        raise fail(f"{where}: the access of '{param}' adds a scalar offset with no stride; cannot tell whether it "
                   f"moves along dim {dim}")
    factors = (offset.left, offset.right)
    names = [footprint.param_name(f) for f in factors]
    for i, name in enumerate(names):
        if name is not None and name == stride:
            return factors[1 - i]
    flat = _factors(offset.left) + _factors(offset.right)
    if isinstance(stride, str) and stride in [footprint.param_name(f) for f in flat]:
        rest = " * ".join(f.name_hint or footprint.host_expr(f) or "<value>" for f in flat
                         if footprint.param_name(f) != stride)
        raise fail(f"{where}: the access of '{param}' adds a product of {len(flat)} factors that contains dim {dim}'s "
                   f"stride {stride}: it moves the tile by whole rows, a number of rows the kernel never computes; "
                   f"write it as ({rest}) * {stride}")
    runtime = [n for f, n in zip(factors, names) if n is not None and not isinstance(f.type, tile.ConstexprType)]
    if runtime and stride == 1:
        return None  # the unit-stride dim is the innermost: a stride parameter moves along an outer dim
    if runtime and isinstance(stride, str):
        outer = [n for n in runtime if not _inner_stride(n, stride, kernel, others)]
        if not outer:
            return None  # times an inner dim's stride: a shift inside the rows
        raise fail(f"{where}: the access of '{param}' adds a scalar times {', '.join(outer)}, which is not the stride "
                   f"of dim {dim} ({stride}) nor of a dim inside it (declared after {stride}, or one the plan "
                   f"models); it may move the tile by whole rows, so its footprint along dim {dim} is unknown")
    if stride == 1 and offset.product is not None:
        return offset.product  # `2 * BLOCK` elements along the unit-stride dim
    raise fail(f"{where}: the access of '{param}' adds a scalar product with no stride parameter of its own; "
               f"cannot tell which dim it moves along (write it as index * <stride parameter>)")


def _explicit_stride(tensor: TensorOp, dim: int) -> bool:
    """The plan named the stride of ``dim`` (not the template's placeholder)."""
    stride = tensor.stride_values[dim]
    return stride != f"stride_{tensor.tensor.data}_{dim}"


def _mask_of(op: Operation) -> SSAValue | None:
    return getattr(op, "mask", None)


def _check_mask(acc: Access, term: footprint.Term, tensor: TensorOp, dim: int, where: str) -> None:
    """The plan's extent of ``dim`` must be the bound the kernel's mask puts
    on that dim's index: ``size=N`` against ``rows < M``, or a ``stride=``
    that picks the term masked by ``K``, would synchronise the wrong rows."""
    size = tensor.shape_values[dim]
    if not (isinstance(size, str) and size.isidentifier()):
        return
    bounds = mask_bounds.index_bounds(_mask_of(acc.op))
    mine = {b for b in bounds.get(footprint.strip(term.index), ()) if b.isidentifier()}
    if mine and size not in mine:
        raise fail(f"{where}: the plan's extent of dim {dim} is {size}, but the kernel masks that dim's index of "
                   f"'{acc.param}' with < {', '.join(sorted(mine))}; give size= and stride= of the dim the plan splits")
    for other in acc.terms:
        if other is not term and size in bounds.get(footprint.strip(other.index), ()) and not mine:
            raise fail(f"{where}: the plan's extent of dim {dim} is {size}, but the kernel masks another dim of "
                       f"'{acc.param}' (stride {_stride_name(other)}) with < {size}; check the plan's dim= and stride=")


def _unmodeled(use: PointerUse, param: str) -> str:
    where = describe(use.op)
    if isinstance(use.op, tile.CallJitOp):
        return (f"{where}: passes '{param}' to the jit helper @{use.op.callee.root_reference.data}; accesses inside "
                f"helpers are not analysed, so they cannot be synchronised (access '{param}' in the kernel itself)")
    if use.carried:
        return (f"{where}: accesses '{param}' through a pointer carried by a loop or branch (e.g. `p += BLOCK * "
                f"stride` in the loop); its footprint cannot be bounded, so it cannot be synchronised (compute the "
                f"address from '{param}' in the loop: `{param} + (k0 + tl.arange(0, BLOCK))[None, :] * stride`)")
    return f"{where}: accesses '{param}' through an address the analysis does not model; it cannot be synchronised"


def _invariant_depth(span: Span, loops: tuple[Operation, ...]) -> int:
    """How many of the innermost ``loops`` the span does not depend on."""
    depth = 0
    for loop in reversed(loops):
        if any(footprint.is_defined_inside(v, loop) for v in span.values()):
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
    scalars = {n for n, a in zip(kernel.arg_names, kernel.body.block.args) if not isinstance(a.type, tile.PointerType)}
    for chunk in plan.chunks:
        for attr in (chunk.offset, chunk.size):
            if isinstance(attr, StringAttr):
                unknown = symbols(attr.data) - scalars - {"W"}
                if unknown:
                    raise fail(
                        f"plan @{plan.sym_name.data}: chunk {chunk.chunk_id.value.data} uses symbol(s) "
                        f"{', '.join(sorted(unknown))}, which are not parameters of @{kernel.sym_name.data}; "
                        f"give the template size=<the kernel parameter holding the length of dim "
                        f"{chunk.dim.value.data}> (scalar parameters: {', '.join(sorted(scalars))})"
                    )


def _check_strides(plan: PlanOp, kernel: tile.FuncOp) -> None:
    """A ``stride=`` the plan names must be a parameter of the kernel."""
    for tensor in plan.tensors:
        for dim, stride in enumerate(tensor.stride_values):
            if isinstance(stride, str) and _explicit_stride(tensor, dim) and stride not in kernel.arg_names:
                raise fail(f"plan @{plan.sym_name.data}: stride={stride} of tensor '{tensor.tensor.data}' is not a "
                           f"parameter of @{kernel.sym_name.data} (parameters: {', '.join(kernel.arg_names)})")


def analyze(module: ModuleOp) -> ChunkDependencies:
    """Bind every plan tensor to the kernel and bound each of its accesses."""
    plans = [op for op in module.ops if isinstance(op, PlanOp)]
    if not plans:
        raise fail("the module has no chunk.plan (give one with overlap-opt --plan SPEC)")
    kernel = find_kernel(module, plans)
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
            found: list[BoundAccess] = []
            for op in kernel.walk():
                try:
                    acc = footprint.access_of(op, {param})
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
                loops = tuple(footprint.enclosing_loops(op))
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


def _access_attr(b: BoundAccess) -> DictionaryAttr:
    lo = b.span.lo_host_expr()
    extent = footprint.host_expr(b.span.extent)
    fields: dict[str, Attribute] = {
        "plan": SymbolRefAttr(b.plan.sym_name.data),
        "tensor": StringAttr(b.tensor.tensor.data),
        "dim": IntegerAttr(b.dim, i64),
        "role": StringAttr(b.role),
        "lo": StringAttr(lo if lo is not None else "?"),
        "extent": StringAttr(extent if extent is not None else "?"),
        "loops": IntegerAttr(len(b.loops), i64),
        "invariant": IntegerAttr(b.invariant, i64),
    }
    if b.span.wrap is not None:
        wrap = footprint.host_expr(b.span.wrap)
        fields["wrap"] = StringAttr(wrap if wrap is not None else "?")
    return DictionaryAttr(fields)


@dataclass(frozen=True)
class ChunkDependencyAnalysisPass(ModulePass):
    """Find the chunks each tile reads or writes (an analysis: attributes only).

    Assumes: the module holds one kernel (tile.func) and one or more
    chunk.plan ops whose tensors name a pointer parameter of that kernel (the
    template's ``tensor=``, e.g. ``tensor=a_ptr``); every access of such a
    parameter is ``param + idx0[:, None]*s0 + idx1[None, :]*s1`` (unit
    strides, any order) or a tensor-descriptor load/store, and its index along
    the plan's dim is ``scalar + tl.arange(0, BLOCK)``. The scalar may be
    anything the kernel computes (program ids, loop variables, loaded values).
    A persistent kernel's tile loop (``for tile in range(tl.program_id(0),
    count, step)``, see ``footprint.tile_loop``) counts as a 1-D grid of
    ``count`` tiles: its loop variable is ``pid0`` in the host expressions,
    and the kernel gets ``chunk.tile_loop = "<count>"``.
    The term of the plan's dim is the one whose stride is the dim's stride
    (the plan's ``stride=`` or its default name); failing that, terms are
    taken in the order the kernel declares their stride parameters, then
    constant strides largest first (row-major), never by block axis alone,
    so transposed loads work.

    Guarantees: each such access gets ``chunk.access = {plan, tensor, dim,
    role, lo, extent, loops, invariant}``: ``lo``/``extent`` are host
    expressions over ``pid0..2`` and kernel parameters (``?`` where they
    depend on loaded data or loop variables), ``loops`` how many loops
    enclose the access and ``invariant`` how many of them (innermost first)
    the footprint does not depend on. The plan's binding is rewritten to the
    kernel's parameter and the stride parameter found in the address. An
    access it cannot bound, a write to a gathered tensor, a read of a
    reduce-scattered one, or plan symbols that are not kernel parameters are
    errors naming the op; nothing is guessed. ``syncopate.ir.deps`` turns the
    attributes into a networkx tile -> chunk graph for concrete sizes.
    """

    name: ClassVar[str] = "chunk-dependency-analysis"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        deps = analyze(op)
        for b in deps.accesses:
            b.access.op.attributes[ACCESS_ATTR] = _access_attr(b)
        loop = footprint.tile_loop(deps.kernel)
        if loop is not None:
            deps.kernel.attributes[TILE_LOOP_ATTR] = StringAttr(footprint.host_expr(loop.ub))  # tile_loop checked it
        else:
            deps.kernel.attributes.pop(TILE_LOOP_ATTR, None)
