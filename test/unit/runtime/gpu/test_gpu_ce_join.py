"""Which ce chunks travel joined (runtime/gpu/ce.py, ``joined``): consecutive
copies of one lane whose rows follow each other in both buffers, up to a
byte limit, never across a ready-token wait, with every chunk's flag."""

from __future__ import annotations

import torch

from syncopate.runtime.gpu.ce import Copy, joined

LIMIT = 1 << 20


def _pair(dst: torch.Tensor, src: torch.Tensor, lo: int, mid: int, hi: int, ready: int | None = None):
    return (Copy(7, dst[lo:mid], src[lo:mid], (1,)), Copy(ready, dst[mid:hi], src[mid:hi], (2,)))


def test_adjacent_rows_join_into_one_copy_with_both_flags():
    dst, src = torch.zeros(8, 4), torch.arange(32.0).view(8, 4)
    both = joined(*_pair(dst, src, 2, 4, 7), LIMIT)
    assert both is not None and both.flags == (1, 2) and both.ready == 7
    assert both.dst.data_ptr() == dst[2].data_ptr() and both.dst.numel() == 5 * 4
    both.dst.copy_(both.src)
    torch.testing.assert_close(dst[2:7], src[2:7])
    assert not dst[:2].any() and not dst[7:].any()  # nothing outside the two chunks


def test_a_chunk_behind_a_ready_wait_starts_its_own_copy():
    dst, src = torch.zeros(8, 4), torch.zeros(8, 4)
    assert joined(*_pair(dst, src, 0, 2, 4, ready=9), LIMIT) is None


def test_joined_copies_stay_within_the_limit():
    dst, src = torch.zeros(8, 4), torch.zeros(8, 4)
    a, b = _pair(dst, src, 0, 2, 4)
    assert joined(a, b, a.dst.nbytes + b.dst.nbytes) is not None
    assert joined(a, b, a.dst.nbytes + b.dst.nbytes - 1) is None
    assert joined(a, b, 0) is None  # ce_join_bytes=0: a copy per chunk


def test_rows_that_do_not_follow_each_other_do_not_join():
    dst, src = torch.zeros(8, 4), torch.zeros(8, 4)
    gap = (Copy(None, dst[0:2], src[0:2], (1,)), Copy(None, dst[3:5], src[3:5], (2,)))
    assert joined(*gap, LIMIT) is None
    other_source = (Copy(None, dst[0:2], src[0:2], (1,)), Copy(None, dst[2:4], torch.zeros(2, 4), (2,)))
    assert joined(*other_source, LIMIT) is None  # another rank's buffer
    swapped_source = (Copy(None, dst[0:2], src[2:4], (1,)), Copy(None, dst[2:4], src[0:2], (2,)))
    assert joined(*swapped_source, LIMIT) is None


def test_column_chunks_are_not_dense_and_do_not_join():
    dst, src = torch.zeros(4, 8), torch.zeros(4, 8)
    columns = (Copy(None, dst[:, 0:2], src[:, 0:2], (1,)), Copy(None, dst[:, 2:4], src[:, 2:4], (2,)))
    assert joined(*columns, LIMIT) is None
