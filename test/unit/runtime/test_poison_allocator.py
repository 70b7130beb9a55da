"""The GPU check poisons the caching allocator before each reference launch
so a kernel that leaves part of its output unwritten is caught. It must
accept every output dtype a workload can return (int8 quantized rows, bool
masks), not only floats."""

import pytest
import torch

from syncopate.runtime.harness.check_gpu import _poison_allocator


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int8, torch.uint8,
                                   torch.int32, torch.int64, torch.bool])
def test_poison_accepts_every_output_dtype(dtype, monkeypatch):
    seen = []
    real_full_like = torch.full_like
    monkeypatch.setattr(torch, "full_like", lambda like, value: seen.append(real_full_like(like, value)) or seen[-1])
    _poison_allocator(torch.zeros(4, dtype=dtype))
    (block,) = seen
    assert block.dtype == dtype
    if dtype.is_floating_point:
        assert torch.isnan(block.float()).all()
    elif dtype != torch.bool:
        assert (block == torch.iinfo(dtype).min).all()  # far from any value a kernel would write
