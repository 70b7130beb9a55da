"""The wait helper (``syn_wait_span``) on its own, in the Triton
interpreter: it must spin on exactly the chunks of its sorted, disjoint
table with ``lo < hi_span`` and ``hi > lo_span`` (found by binary search),
the rule of the linear scan it replaced: an empty chunk strictly inside the
span counts (its flag is raised like any other), chunks that only touch the
span's ends do not. A span whose chunks are all ready returns at once; one
that touches an unready chunk runs out of its spin limit and reports the
first such chunk's flag."""

import pytest
import torch
import triton

from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.lowering.device_helpers import syn_wait_span, syn_wait_span_loop, syn_wait_span_memo
from syncopate.runtime.abi import AbiError, _check_disjoint


@triton.jit
def _wait(flags, table, n, lo, hi, epoch_ptr, spin_limit, report):
    syn_wait_span(flags, table, n, lo, hi, epoch_ptr, spin_limit, report)


# (lo, hi, flag): rows sorted by lo and disjoint, with an empty chunk at 10
TABLE = [(0, 10, 0), (10, 10, 1), (10, 25, 2), (25, 40, 3), (40, 64, 4)]
READY = {0: True, 1: False, 2: False, 3: True, 4: True}


def blocked_flag(lo: int, hi: int) -> int | None:
    """The flag the helper reported as never raised, or None if it returned without timing out."""
    epoch = torch.tensor([5], dtype=torch.int32)
    flags = torch.tensor([5 if READY[f] else 4 for _, _, f in TABLE], dtype=torch.int32)
    table = torch.tensor(TABLE, dtype=torch.int32)
    report = torch.zeros(4, dtype=torch.int32)
    _wait[(1,)](flags, table, len(TABLE), lo, hi, epoch, 3, report)
    return int(report[2]) if int(report[0]) else None


@pytest.mark.parametrize("lo, hi, expected", [
    (0, 10, None),  # only chunk 0: the empty chunk at 10 and chunk 2 start where the span ends
    (30, 64, None),  # chunks 3 and 4
    (5, 12, 1),  # chunk 0, the empty chunk inside the span (first unready), the first rows of chunk 2
    (11, 12, 2),  # inside chunk 2 only
    (24, 26, 2),  # the last row of chunk 2 and the first of chunk 3
    (25, 26, None),  # starts exactly where chunk 2 ends
    (63, 64, None),  # the last row
    (0, 64, 1),  # everything: the first unready chunk in table order
])
def test_the_wait_spins_on_exactly_the_overlapping_chunks(lo: int, hi: int, expected: int | None):
    assert blocked_flag(lo, hi) == expected


def chunk(cid: int, lo: int, hi: int) -> ConcreteChunk:
    return ConcreteChunk("ag", cid, cid, "a", "a_ptr", 0, lo, hi, 1, 0, 0, "ce")


def test_wait_tables_with_overlapping_rows_are_refused():
    _check_disjoint([chunk(0, 0, 10), chunk(1, 10, 10), chunk(2, 10, 20)], 0)  # touching and empty: fine
    with pytest.raises(AbiError, match=r"plan @ag: rank 0 receives rows \[15, 20\) of 'a' in two chunks \(1 and 2\)"):
        _check_disjoint([chunk(0, 0, 10), chunk(1, 10, 20), chunk(2, 15, 30)], 0)


@triton.jit
def _wait_loop(flags, table, n, lo, hi, first, step, epoch_ptr, spin_limit, report):
    syn_wait_span_loop(flags, table, n, lo, hi, first, step, epoch_ptr, spin_limit, report)


def blocked_flag_in_loop(lo: int, hi: int, first: int, step: int) -> int | None:
    epoch = torch.tensor([5], dtype=torch.int32)
    flags = torch.tensor([5 if READY[f] else 4 for _, _, f in TABLE], dtype=torch.int32)
    report = torch.zeros(4, dtype=torch.int32)
    _wait_loop[(1,)](flags, torch.tensor(TABLE, dtype=torch.int32), len(TABLE), lo, hi, first, step, epoch, 3, report)
    return int(report[2]) if int(report[0]) else None


@pytest.mark.parametrize("lo, hi, first, step, expected", [
    (15, 20, 0, 5, None),  # chunk 2 also overlapped the previous iteration [10, 15): not checked again
    (15, 20, 15, 5, 2),  # the first iteration checks every chunk of its range
    (15, 20, 0, -5, 2),  # a descending loop's previous range is not below: check everything
    (20, 30, 0, 10, None),  # chunk 2 was seen by [10, 20); chunk 3 starts at 25 >= 20 and is checked (ready)
    (5, 12, 0, 7, 1),  # after [-2, 5): chunk 0 was seen; the empty chunk at 10 is new and unready
    (10, 26, 0, 16, 2),  # after [-6, 10): chunk 2 starts exactly at the previous end, so it is new (unready)
])
def test_a_loop_wait_checks_only_chunks_the_previous_iteration_did_not(lo, hi, first, step, expected):
    assert blocked_flag_in_loop(lo, hi, first, step) == expected


@triton.jit
def _wait_memo_twice(flags, table, n, lo0, hi0, lo1, hi1, epoch_ptr, spin_limit, report, memo):
    syn_wait_span_memo(flags, table, n, lo0, hi0, epoch_ptr, spin_limit, report, memo)
    syn_wait_span_memo(flags, table, n, lo1, hi1, epoch_ptr, spin_limit, report, memo)


def blocked_flag_after(first: tuple[int, int], second: tuple[int, int]) -> int | None:
    """Two memo waits of one program: the flag the second reported as never raised."""
    epoch = torch.tensor([5], dtype=torch.int32)
    flags = torch.tensor([5 if READY[f] else 4 for _, _, f in TABLE], dtype=torch.int32)
    report = torch.zeros(4, dtype=torch.int32)
    memo = torch.full((2,), -1, dtype=torch.int32)
    _wait_memo_twice[(1,)](flags, torch.tensor(TABLE, dtype=torch.int32), len(TABLE), *first, *second,
                           epoch, 3, report, memo)
    return int(report[2]) if int(report[0]) else None


@pytest.mark.parametrize("first, second, expected", [
    ((0, 10), (11, 12), 2),  # chunk 0 is memoised, chunk 2 is still polled
    ((10, 10), (11, 12), 2),  # an empty range at chunk 2's start waits for nothing, so it must not memoise chunk 2
    ((10, 4), (11, 12), 2),  # nor may a reversed one (a wrapped or clamped range that is empty)
])
def test_a_memo_wait_remembers_only_chunks_it_waited_for(first, second, expected):
    assert blocked_flag_after(first, second) == expected


def report_of(lo: int, hi: int, loop: bool = False) -> list[int]:
    """The report words after a wait for ``[lo, hi)`` by each program of a
    (2, 1) grid, every chunk ready."""
    epoch = torch.tensor([5], dtype=torch.int32)
    flags = torch.full((len(TABLE),), 5, dtype=torch.int32)
    table = torch.tensor(TABLE, dtype=torch.int32)
    report = torch.zeros(4, dtype=torch.int32)
    if loop:
        _wait_loop[(2, 1)](flags, table, len(TABLE), lo, hi, lo, hi - lo, epoch, 3, report)
    else:
        _wait[(2, 1)](flags, table, len(TABLE), lo, hi, epoch, 3, report)
    return [int(x) for x in report]


@pytest.mark.parametrize("loop", [False, True])
@pytest.mark.parametrize("lo, hi, reported", [
    (64, 80, True),  # past the last chunk: the rows of a head offset folded into the split dim
    (-16, 0, True),  # below the first chunk
    (64, 64, False),  # empty (a fully masked tile's cut range)
    (70, 60, False),  # reversed: empty too
    (60, 80, False),  # overlaps the last chunk: waits for it
    (10, 11, False),  # inside chunk 2 (the empty chunk at 10 is not the only one)
])
def test_a_wait_that_meets_no_chunk_reports_its_tile_and_range(lo: int, hi: int, reported: bool, loop: bool):
    """A non-empty range that no chunk overlaps polls nothing: instead of
    returning as if its rows were delivered, the wait records (2, linear
    tile id, lo, hi), which the runtime raises (abi.SyncState.timeout)."""
    code, tile_id, *rows = report_of(lo, hi, loop)
    if reported:
        assert code == 2 and tile_id in (0, 1) and rows == [lo, hi]  # the first of the two programs to report
    else:
        assert (code, tile_id, rows) == (0, 0, [0, 0])
