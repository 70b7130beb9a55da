"""Exact tiling of an extent into pieces (ints or symbolic expressions).

* int extent ``S`` into ``n`` pieces: piece size ``ceil(S/n)``, the last
  pieces smaller (possibly empty) so the pieces end exactly at ``S``;
* symbolic extent ``S`` into ``n`` pieces: every piece ``S/n`` (floor) and the
  last one ``S - (n-1)*(S/n)``, which tiles exactly for every value of ``S``.
"""

from __future__ import annotations

from syncopate.ir.plans.expr import Extent, add, div, mul, sub


def tile(extent: Extent, n: int) -> list[tuple[Extent, Extent]]:
    """``n`` (offset, size) pairs tiling ``[0, extent)`` exactly, in order."""
    if n < 1:
        raise ValueError("need at least one piece")
    if isinstance(extent, int):
        q = -(-extent // n)
        pieces = []
        for i in range(n):
            off = min(i * q, extent)
            pieces.append((off, min(q, extent - off)))
        return pieces
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
