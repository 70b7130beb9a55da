"""Exact tiling of an extent into pieces (ints or symbolic expressions).

One rule for both (docs/plans.md, "Cutting rows"): ``n`` pieces of ``S // n``
(floor) rows, the last piece ``S - (n-1)*(S // n)`` (the rest). A literal
extent is cut as the symbolic one evaluated at that value, so a plan gives
each rank the same rows whether its size is written as a number or bound at
launch, and the rows the workloads' ``shard_bounds`` hands each rank.
"""

from __future__ import annotations

from syncopate.ir.plans.expr import Extent, add, div, mul, sub


def tile(extent: Extent, n: int) -> list[tuple[Extent, Extent]]:
    """``n`` (offset, size) pairs tiling ``[0, extent)`` exactly, in order."""
    if n < 1:
        raise ValueError("need at least one piece")
    if isinstance(extent, int):
        q = extent // n
        return [(i * q, q) for i in range(n - 1)] + [((n - 1) * q, extent - (n - 1) * q)]
    q = div(extent, n)
    pieces = [(mul(i, q), q) for i in range(n - 1)]
    pieces.append((mul(n - 1, q), sub(extent, mul(n - 1, q))))
    return pieces


def shift(pieces: list[tuple[Extent, Extent]], base: Extent) -> list[tuple[Extent, Extent]]:
    """The same pieces offset by ``base``."""
    return [(add(base, off), size) for off, size in pieces]


def is_empty(size: Extent) -> bool:
    """True for a size known to be zero (symbolic sizes are never dropped)."""
    return size == 0
