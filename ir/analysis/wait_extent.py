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
"""

from __future__ import annotations

import sympy
from xdsl.dialects import scf
from xdsl.ir import Operation

from syncopate.dialects import tile
from syncopate.ir.analysis.index_spans import Span
from syncopate.ir.analysis.symbolic import Symbolic, provably_le, text


def _extent(size: str | int, kernel: tile.FuncOp, values: Symbolic) -> sympy.Expr | None:
    """The plan's extent as an expression, when it is a number or a kernel parameter."""
    if isinstance(size, int):
        return sympy.Integer(size)
    if size in kernel.arg_names:
        arg = kernel.body.block.args[kernel.arg_names.index(size)]
        return values.param(size, isinstance(arg.type, tile.ConstexprType))
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
