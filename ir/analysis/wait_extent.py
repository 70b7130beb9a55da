"""Whether the rows a read waits for can leave the plan's extent.

Chunks tile ``[0, extent)`` of the plan's dim; a wait for rows outside it
meets no chunk, polls nothing and returns at once, so the tile would read
rows no delivery is ordered before (silently, where the tensor is longer
than the extent: heads or batches behind the planned rows). The classic
cause is an outer offset folded into the split dim's index,
``(off_hz * N_CTX) * HEAD_DIM`` as rows of an extent of ``N_CTX``.

The grid is known only at launch, so the check proves what holds for every
grid, symbolically (``ir/analysis/symbolic.py``): a range whose start moves
by at least the extent per program id or loop iteration (then every program
but one along that axis, or every iteration but one, waits outside), or
whose first tile (program ids and iterations 0) already starts at or past
the extent, leaves it. Rows the access's mask keeps below a bound
(``Span.masked_from``) are exempt: past the bound a tile reads nothing, and
insert-signals cuts its wait there. The run time catches the rest:
``syn_check_span`` reports a non-empty wait that meets no chunk
(lowering/device_helpers.py).

A range that loop-carried pointers walk (``k_ptrs += BLOCK_N * stride``,
``Span.walks``) gets no mask bound from the analysis, so its wait is never
cut: :func:`walk_leaves_extent` asks instead for a proof that its start
stays below the extent in every iteration a loop runs (iteration ``i`` of
``range(lb, ub, step)`` runs only where ``lb + i * step < ub``, and
``cdiv(a, b) <= (a + b - 1) / b``). A walk that starts a block or more past
the first row can start past the extent in its last iteration, reading
nothing there (its mask) but waiting for rows no chunk holds.
"""

from __future__ import annotations

import sympy
from xdsl.dialects import scf
from xdsl.ir import Operation

from syncopate.dialects import tile
from syncopate.ir.analysis.index_spans import Span
from syncopate.ir.analysis.symbolic import Symbolic, provably_le, text


def _extent(size: str | int, kernel: tile.FuncOp, values: Symbolic, length: bool = False) -> sympy.Expr | None:
    """The plan's extent as an expression, when it is a number or a kernel
    parameter; ``length``: the parameter is known >= 0 (a tensor's length,
    as a launch binds it) wherever ``values`` meets it, so call this first."""
    if isinstance(size, int):
        return sympy.Integer(size)
    if size in kernel.arg_names:
        arg = kernel.body.block.args[kernel.arg_names.index(size)]
        return values.param(size, length or isinstance(arg.type, tile.ConstexprType))
    return None


def _start(span: Span, values: Symbolic) -> sympy.Expr:
    """The range's first row, as :func:`index_spans.lo_of` plus the walks."""
    lo = sympy.Add(*(values.of(t) for t in span.lo_terms)) - sympy.Add(*(values.of(t) for t in span.lo_minus))
    lo += span.lo_const + sympy.Add(*(values.iteration(w.loop) * values.of(w.shift) for w in span.walks))
    return sympy.expand(lo)


def _movers(loops: tuple[Operation, ...], span: Span, values: Symbolic) -> dict[sympy.Symbol, str]:
    """The symbols that take every value from 0 up in some launch: program
    ids and the iteration numbers of the enclosing for loops, with how an
    error names them."""
    movers = {values.program_id(a): f"program id {a}" for a in range(3)}
    for loop in (*loops, *(w.loop for w in span.walks)):
        if isinstance(loop, scf.ForOp):
            movers[values.iteration(loop)] = "loop iteration"
    return movers


def leaves_extent(span: Span, loops: tuple[Operation, ...], size: str | int, kernel: tile.FuncOp) -> str | None:
    """Why the read range ``span`` (inside ``loops``) leaves ``[0, size)``
    in every launch with more than one program or iteration along some
    axis, or at the first tile; None when that is not proved."""
    if span.wrap is not None or span.reshaped or span.masked_from is not None:
        return None  # wrapped and clamped rows stay in their bounds; masked-off rows are not read
    values = Symbolic()
    extent = _extent(size, kernel, values)
    if extent is None:
        return None
    start = _start(span, values)
    movers = _movers(loops, span, values)
    for symbol, what in movers.items():
        step = sympy.expand(sympy.diff(start, symbol))
        if step == 0 or symbol in step.free_symbols:
            continue
        if provably_le(extent, step) or provably_le(extent, -step):
            return (f"its rows start at {text(start)}, which moves by {text(step)} per step of {what}, at least the "
                    f"plan's extent {text(extent)}: for all but one value of {what} it waits for rows outside "
                    f"[0, {text(extent)})")
    first = sympy.expand(start.subs({s: 0 for s in movers}))
    if provably_le(extent, first):
        return (f"its rows start at {text(start)}, at least {text(first)} even for the first tile, past the "
                f"plan's extent {text(extent)}: it waits for rows outside [0, {text(extent)})")
    return None


def _divisions_bounded(expr: sympy.Expr) -> sympy.Expr | None:
    """An upper bound of ``expr`` with every ``cdiv(a, b)`` replaced by
    ``(a + b - 1) / b`` and every ``a // b`` with ``a >= 0`` by ``a / b``,
    where its coefficient is >= 0 (``b >= 0`` is ``>= 1``: a division by 0
    faults); None where one cannot be bounded so."""
    for call in sorted(expr.atoms(sympy.Function), key=sympy.default_sort_key):
        name = str(call.func)
        if not name.startswith((tile.CdivOp.name, tile.FloorDivOp.name)) or len(call.args) != 2:
            continue
        a, b = call.args
        coefficient = sympy.cancel(sympy.diff(expr, call))
        if call in coefficient.free_symbols or not provably_le(sympy.Integer(0), coefficient) \
                or not provably_le(sympy.Integer(0), b):
            return None
        if name.startswith(tile.CdivOp.name):
            expr = sympy.cancel(expr.subs(call, (a + b - 1) / b))
        elif provably_le(sympy.Integer(0), a):
            expr = sympy.cancel(expr.subs(call, a / b))
        else:
            return None
    return expr


def walk_leaves_extent(span: Span, size: str | int, kernel: tile.FuncOp) -> str | None:
    """Why the start of a range walked by loop-carried pointers may reach
    ``size`` in some iteration of its loops, or None: no walk, a mask that
    cuts it, or a start provably below ``size`` in every iteration. The
    plan's extent is a length (>= 0) and the span's block ``tl.arange``
    rows (>= 1), which the proof uses."""
    if not span.walks or span.wrap is not None or span.reshaped or span.masked_from is not None:
        return None
    values = Symbolic()
    extent = _extent(size, kernel, values, length=True)
    if extent is None:
        return None  # a launch-time size: syn_check_span reports such a wait at run time
    start = _start(span, values)
    block = values.of(span.extent)
    at_least_one = {block: sympy.Dummy("block", integer=True, nonnegative=True) + 1} \
        if isinstance(block, (sympy.Symbol, sympy.Function)) else {}
    bound: sympy.Expr | None = sympy.expand(start.xreplace(at_least_one))
    for loop in dict.fromkeys(w.loop for w in span.walks):
        i = values.iteration(loop)
        coefficient = sympy.cancel(sympy.diff(bound, i))
        lb, ub, step = (sympy.expand(values.of(v).xreplace(at_least_one)) for v in (loop.lb, loop.ub, loop.step))
        # a step >= 0 is >= 1: a for loop never steps by 0
        if i in coefficient.free_symbols or not provably_le(sympy.Integer(0), coefficient) \
                or not provably_le(sympy.Integer(0), step):
            bound = None
            break
        # the last iteration: lb + i * step <= ub - 1 (cancelled: the step usually divides out)
        bound = sympy.cancel(bound.subs(i, (ub - lb - 1) / step))
    bound = _divisions_bounded(bound) if bound is not None else None
    if bound is not None and provably_le(sympy.Integer(0), sympy.cancel(extent - bound - 1)):
        return None
    return (f"its rows start at {text(start)}, walked by a loop-carried pointer, and its start in the loop's last "
            f"iteration is not provably below the plan's extent {text(extent)}: that iteration would wait for rows "
            f"outside [0, {text(extent)})")
