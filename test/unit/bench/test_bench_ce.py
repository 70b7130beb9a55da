"""The copy-engine all-gather of the cuBLAS+CE and CE alone rows, at W = 2
in one process: one thread per rank, the ranks' symmetric buffers are
plain tensors (each rank's peer view is the other's buffer), and the
device-side barrier is a thread barrier. A slow producer and a slow reader
are made with sleeps; removing either barrier of bench/ce.py lets the
other rank race, and the gathered rows come out wrong."""

import threading
import time

import pytest
import torch

from syncopate.bench.ce import CopyEngineGather

ROWS, COLS, CALLS = 4, 3, 3
DELAY = 0.2  # seconds: far longer than the copies, so the race is decided by the barriers alone


def shards(call):
    g = torch.Generator().manual_seed(call)
    return [torch.randn(ROWS, COLS, generator=g) for _ in range(2)]


class SlowView:
    """A peer's buffer that sleeps before each read (a slow reader)."""

    def __init__(self, tensor, delay):
        self.tensor, self.delay = tensor, delay

    def __getitem__(self, rows):
        time.sleep(self.delay)
        return self.tensor[rows]


def run(skip=None, slow_writer=0.0, slow_reader=0.0):
    """``CALLS`` back-to-back gathers on both ranks with fresh shards each
    call; ``skip`` ("ready" or "reuse") drops that barrier on both ranks.
    Rank 1 writes late by ``slow_writer``; rank 0 reads late by ``slow_reader``.
    Returns each rank's gathered output per call."""
    buffers = [torch.full((2 * ROWS, COLS), float("nan")) for _ in range(2)]
    shared = threading.Barrier(2, timeout=10)
    outs = [[None] * CALLS for _ in range(2)]
    errors = []

    def rank_main(rank):
        count = [0]

        def barrier():
            count[0] += 1
            which = "ready" if count[0] % 2 == 1 else "reuse"
            if which != skip:
                shared.wait()

        views = [buffers[0], buffers[1]]
        if rank == 0:
            views[1] = SlowView(buffers[1], slow_reader)
        gather = CopyEngineGather(rank, buffers[rank], views, barrier)
        try:
            for call in range(CALLS):
                out = torch.full((2 * ROWS, COLS), float("nan"))
                if rank == 1:
                    time.sleep(slow_writer)
                gather(out, shards(call)[rank])
                outs[rank][call] = out
        except Exception as err:  # reported by the test, never a hang
            errors.append(err)

    threads = [threading.Thread(target=rank_main, args=(r,)) for r in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors
    return outs


def correct(outs):
    return [all(torch.equal(outs[r][c], torch.cat(shards(c))) for r in range(2)) for c in range(CALLS)]


def test_back_to_back_calls_with_fresh_shards_gather_every_rank_in_order():
    assert correct(run(slow_writer=DELAY / 4, slow_reader=DELAY / 4)) == [True] * CALLS


def test_without_the_ready_barrier_a_slow_producer_is_read_too_early():
    assert not all(correct(run(skip="ready", slow_writer=DELAY)))


def test_without_the_reuse_barrier_the_next_write_overtakes_a_slow_reader():
    assert not all(correct(run(skip="reuse", slow_reader=DELAY)))


def test_the_rows_of_each_rank_are_its_block_of_the_buffer():
    buf = torch.zeros(12, 2)
    g = CopyEngineGather(1, buf, [buf, buf, buf], lambda: None)
    assert [g.rows(p) for p in range(3)] == [slice(0, 4), slice(4, 8), slice(8, 12)]


def test_local_gather_is_refused_for_several_ranks():
    from types import SimpleNamespace

    from syncopate.bench.ce import local_gather

    with pytest.raises(RuntimeError, match="needs CUDA symmetric memory"):
        local_gather(SimpleNamespace(world=2, rank=0, device=torch.device("cpu")), (4, 2), torch.float32)
