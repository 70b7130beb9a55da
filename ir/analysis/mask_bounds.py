"""Upper bounds a load or store mask puts on its 1-D indices.

``mask=(rows[:, None] < M) & (ks[None, :] < K)`` says the kernel addresses
``rows`` only below ``M`` and ``ks`` only below ``K``: the kernel's own
statement of each dim's extent. :func:`index_bounds` collects, for each 1-D
index compared in a conjunction of ``index < bound`` (or ``bound > index``)
terms, the bounds as host expressions (:func:`bound_values`: the bounds
as values, upper or lower); ``&``, ``and``, ``[:, None]``,
broadcasts and retypes are looked through. Comparisons it does not
understand contribute nothing, so the result is evidence, never a guess.
"""

from __future__ import annotations

from syncopate.dialects import tile
from syncopate.ir.analysis import host_exprs, ssa_values
from xdsl.ir import OpResult, SSAValue


def _index(value: SSAValue) -> SSAValue:
    value = ssa_values.strip(value)
    while isinstance(value, OpResult) and isinstance(value.op, tile.ExpandDimsOp):
        value = ssa_values.strip(value.op.src)
    return value


def index_bounds(mask: SSAValue | None) -> dict[SSAValue, set[str]]:
    """{1-D index: host expressions it is compared below} for ``mask``."""
    bounds: dict[SSAValue, set[str]] = {}
    for index, bound in bound_values(mask, upper=True):
        expr = host_exprs.host_expr(bound)
        if expr is not None:
            bounds.setdefault(index, set()).add(expr)
    return bounds


# the comparisons `index < bound` / `bound > index` (upper) and `index >= bound` / `bound <= index` (lower)
_UPPER = {"lt": 0, "gt": 1}
_LOWER = {"ge": 0, "le": 1}


def bound_values(mask: SSAValue | None, upper: bool) -> list[tuple[SSAValue, SSAValue]]:
    """(1-D index, bound) for each term of the conjunction ``mask`` that
    keeps the index below the bound (``upper``: lanes with ``index >=
    bound`` are off) or at or above it (lanes with ``index < bound`` are off)."""
    sides = _UPPER if upper else _LOWER
    found: list[tuple[SSAValue, SSAValue]] = []
    work = [mask] if mask is not None else []
    while work:
        value = _index(work.pop())
        if not isinstance(value, OpResult):
            continue
        op = value.op
        if isinstance(op, (tile.AndOp, tile.LogicalAndOp)):
            work += [op.lhs, op.rhs]
        elif isinstance(op, tile.CmpOp) and op.predicate.data in sides:
            index, bound = (op.lhs, op.rhs) if sides[op.predicate.data] == 0 else (op.rhs, op.lhs)
            found.append((_index(index), bound))
    return found
