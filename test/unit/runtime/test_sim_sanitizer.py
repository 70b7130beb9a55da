"""The address sanitizer of simulated ranks (runtime/sim/sanitizer.py) on
addresses given directly: which reads and writes it reports, and what a
report names."""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from syncopate.ir.analysis.deps import ConcreteChunk
from syncopate.runtime.sim.sanitizer import AddressSanitizer

EPOCH = 3


def _chunk(id_: int, lo: int, hi: int, flag: int, local: bool = False, src: int = 1, dst: int = 0) -> ConcreteChunk:
    return ConcreteChunk(plan="ag", id=id_, src=src if not local else dst, dst=dst, tensor="t", param="x", dim=0,
                         lo=lo, hi=hi, step=0, backend="ce", flag=flag)


def _addresses(t: torch.Tensor, rows: list[int], col: int = 0) -> np.ndarray:
    return np.array([t.data_ptr() + (r * t.stride(0) + col) * t.element_size() for r in rows], dtype=np.uint64)


def _sanitizer(t: torch.Tensor, consumed: bool, complete=lambda flag: False):
    flags = torch.zeros(8, dtype=torch.int32)
    chunks = [_chunk(0, 0, 4, 0, local=True), _chunk(1, 4, 8, 1), _chunk(2, 8, 12, 2)]
    if not consumed:
        chunks = [dataclasses.replace(c, src=0, dst=1) for c in chunks]
    return AddressSanitizer.of(0, EPOCH, flags, [("x", consumed, chunks)], {"x": t}, complete), flags


def test_reads_of_local_rows_and_of_chunks_the_program_waited_for_pass():
    t = torch.zeros(12, 5)
    san, flags = _sanitizer(t, consumed=True)
    san.start((0, 0, 0))
    flags[1] = EPOCH
    san.polled(1)
    san.loaded(_addresses(t, [0, 3, 4, 7], col=2), np.ones(4, dtype=bool))
    assert san.report() is None


def test_a_read_of_a_chunk_polled_unset_or_never_polled_is_reported_once_per_chunk_and_program():
    t = torch.zeros(12, 5)
    san, flags = _sanitizer(t, consumed=True)
    san.start((1, 0, 0))
    san.polled(1)  # found unset: a spin that exits here has not waited
    san.loaded(_addresses(t, [5, 6, 9]), np.ones(3, dtype=bool))
    san.loaded(_addresses(t, [5]), np.ones(1, dtype=bool))
    report = san.report()
    assert report is not None and san.count == 2
    assert "rank 0 program (1, 0, 0): read row 5 of 'x'" in report and "chunk 1 of @ag from rank 1" in report
    assert "read row 9 of 'x'" in report and "chunk 2" in report
    assert "test_sim_sanitizer.py:" in report  # the line that loaded (the interpreter runs kernels as Python)


def test_waits_do_not_carry_over_to_the_next_program_and_masked_lanes_touch_nothing():
    t = torch.zeros(12, 5)
    san, flags = _sanitizer(t, consumed=True)
    san.start((0, 0, 0))
    flags[1] = EPOCH
    san.polled(1)
    san.start((1, 0, 0))
    san.loaded(_addresses(t, [5, 9]), np.array([False, False]))
    assert san.report() is None
    san.loaded(_addresses(t, [5]), np.ones(1, dtype=bool))
    assert "program (1, 0, 0): read row 5" in san.report()


def test_addresses_outside_the_tensor_are_not_its_rows():
    t = torch.zeros(12, 5)
    other = torch.zeros(12, 5)
    san, _ = _sanitizer(t, consumed=True)
    san.start((0, 0, 0))
    san.loaded(_addresses(other, [5, 9]), np.ones(2, dtype=bool))
    assert san.report() is None


def test_writes_must_be_followed_by_a_signal_of_their_chunk_by_the_same_program():
    t = torch.zeros(12, 5)
    san, _ = _sanitizer(t, consumed=False)
    san.start((0, 0, 0))
    san.stored(_addresses(t, [4, 5]), np.ones(2, dtype=bool))
    san.signalled(1)
    san.stored(_addresses(t, [6]), np.ones(1, dtype=bool))  # a persistent program's next tile of the chunk...
    san.signalled(1)  # ...announced again: fine
    san.stored(_addresses(t, [9]), np.ones(1, dtype=bool))
    san.start((1, 0, 0))  # chunk 2's write was never announced by program 0
    report = san.report()
    assert report is not None and san.count == 1
    assert "program (0, 0, 0): wrote rows of chunk 2 of @ag (rows [8, 12) of 'x') that no later signal" in report


def test_a_write_to_a_chunk_already_announced_complete_is_reported():
    t = torch.zeros(12, 5)
    san, _ = _sanitizer(t, consumed=False, complete=lambda flag: flag == 2)
    san.start((0, 0, 0))
    san.stored(_addresses(t, [10]), np.ones(1, dtype=bool))
    assert "wrote row 10 of 'x'" in san.report() and "after the chunk was announced complete" in san.report()
