"""The SM backend's copy helper (``syn_sm_pull``) on its own, in the Triton
interpreter: aligned ranges take the unmasked vector path for whole blocks
and the masked path for the tail; unaligned ranges take the masked path
only. Every element of every range must arrive and nothing else may change."""

import pytest
import torch
import triton
import triton.language as tl

from syncopate.lowering.device_helpers import syn_sm_pull


@triton.jit
def _pull(base, flags, table, n, epoch_ptr, programs, BLOCK: tl.constexpr):
    syn_sm_pull(base, flags, table, n, epoch_ptr, tl.program_id(0), programs, BLOCK)


# (start, end, peer offset, segments, stride): element ranges of the destination
RANGES = {
    "aligned, several blocks and a tail": [(0, 112, 256, 1, 0)],
    "aligned, exact blocks": [(32, 96, 208, 1, 0)],
    "unaligned start": [(3, 70, 250, 1, 0)],
    "unaligned peer offset": [(16, 80, 241, 1, 0)],
    "strided segments": [(0, 32, 200, 3, 48), (32, 48, 220, 3, 48)],
}


@pytest.mark.parametrize("case", sorted(RANGES))
@pytest.mark.parametrize("programs", [1, 2])
def test_sm_pull_copies_exactly_the_ranges(case: str, programs: int):
    rows = RANGES[case]
    g = torch.Generator().manual_seed(len(case))
    base = torch.randn(512, generator=g)
    expected = base.clone()
    for start, end, peer, segments, stride in rows:
        for k in range(segments):
            lo, hi = start + k * stride, end + k * stride
            expected[lo:hi] = base[lo + peer:hi + peer]
    table = torch.tensor([[s, e, i, p, n, st] for i, (s, e, p, n, st) in enumerate(rows)], dtype=torch.int64)
    flags = torch.zeros(len(rows), dtype=torch.int32)
    epoch = torch.tensor([7], dtype=torch.int32)
    _pull[(programs,)](base, flags, table, len(rows), epoch, programs, BLOCK=32)
    assert torch.equal(base, expected)
    assert flags.tolist() == [7] * len(rows)
