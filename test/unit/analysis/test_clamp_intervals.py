"""``index_spans.intervals`` against brute force: for every clamp and
``tl.where`` form the analysis accepts, every row a lane can touch lies in
one of the returned ranges (never an under-approximation), and clamps are
exact (no row outside the clamped rows)."""

from __future__ import annotations

import itertools

import pytest

from syncopate.ir.analysis.index_spans import Clamp, Otherwise, Span, intervals


class Sym:
    """A stand-in for an SSA value: ``IntArith`` reads its number."""

    def __init__(self, n: int):
        self.n = n


class IntArith:
    def value(self, ssa: Sym) -> int:
        return ssa.n

    def const(self, n: int) -> int:
        return n

    def add(self, a: int, b: int) -> int:
        return a + b

    def sub(self, a: int, b: int) -> int:
        return a - b

    def min(self, a: int, b: int) -> int:
        return min(a, b)

    def max(self, a: int, b: int) -> int:
        return max(a, b)


def _rows(lo: int, extent: int, clamps: list[tuple[int, bool]], where: tuple[int, int | None] | None) -> set[int]:
    rows = list(range(lo, lo + extent))
    for bound, upper in clamps:
        rows = [min(r, bound) if upper else max(r, bound) for r in rows]
    if where is None:
        return set(rows)
    value, limit = where
    if limit is None:  # any condition: any lane may take `value`
        return set(rows) | {value}
    return {r if r < limit else value for r in rows}


def _covered(ranges: list[tuple[int, int]]) -> set[int]:
    return {r for lo, extent in ranges for r in range(lo, lo + extent)}


CLAMPS = [[], [(9, True)], [(2, False)], [(0, False), (9, True)], [(5, True), (7, False)]]
WHERES = [None, (0, 10), (0, 6), (3, None), (12, 8)]


@pytest.mark.parametrize("clamps", CLAMPS, ids=str)
@pytest.mark.parametrize("where", WHERES, ids=str)
def test_every_row_is_covered(clamps, where):
    for lo, extent in itertools.product(range(-6, 16), (1, 4, 7)):
        span = Span((), Sym(extent), clamps=tuple(Clamp(Sym(b), u) for b, u in clamps),
                    otherwise=None if where is None else Otherwise(Sym(where[0]), None if where[1] is None else Sym(where[1])))
        ranges = intervals(span, lo, IntArith())
        rows = _rows(lo, extent, clamps, where)
        assert rows <= _covered(ranges), (lo, extent, ranges, sorted(rows))
        if where is None:
            assert _covered(ranges) == rows, (lo, extent, ranges, sorted(rows))  # clamps are exact
