"""Why an access has no bounded footprint.

The footprint analysis (:mod:`~syncopate.ir.analysis.access_patterns`,
:mod:`~syncopate.ir.analysis.index_spans`) raises :class:`Unbounded` for an
address it cannot bound, with a message saying why; callers report it
instead of guessing. :class:`LoadedRows` is the one such case a caller can
still bound at run time: rows read from a table
(:mod:`~syncopate.ir.analysis.loaded_rows`).
"""

from __future__ import annotations

from xdsl.ir import SSAValue


class Unbounded(Exception):
    """An access whose footprint this analysis cannot bound; the message says why."""


class LoadedRows(Unbounded):
    """An index (or what is left of it after its scalar terms) computed from
    loaded data, e.g. row ids read from a routing table: no affine range, but
    a read's rows lie in [min, max + 1) of its values (ir/analysis/loaded_rows.py)."""

    def __init__(self, index: SSAValue):
        super().__init__("the index is not 'scalar + tl.arange(0, BLOCK)' (found rows read from memory); "
                         "only a load can gather rows from a table: store to rows computed from the program id")
        self.index = index
