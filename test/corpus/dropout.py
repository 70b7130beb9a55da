"""Seeded dropout in the style of Triton's tutorial 04: a 1-D block per
program, the keep mask from `tl.rand(seed, offsets)`."""

import torch
import triton
import triton.language as tl


@triton.jit
def seeded_dropout_kernel(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    n = 700
    x = torch.randn(n, generator=g)
    out = torch.empty(n)
    return {
        "kernel": "seeded_dropout_kernel",
        "grid": (triton.cdiv(n, 128),),
        "args": [x, out, n, 0.5, 123],
        "kwargs": {"BLOCK_SIZE": 128},
        "outputs": [1],
        "atol": 1e-6,
        "rtol": 1e-6,
    }


def reference(case: dict) -> list:
    # The keep mask is Triton's Philox stream: the reference checks the
    # dropout's algebra (every output is 0 or x / (1 - p)) by running the
    # kernel's own formula on the kept positions it reports.
    x, _, n, p, seed = case["args"]
    out = torch.empty_like(x)
    seeded_dropout_kernel[case["grid"]](x, out, n, p, seed, **case["kwargs"])
    kept = out != 0
    assert torch.allclose(out[kept], x[kept] / (1 - p))
    assert 0.3 < kept.float().mean() < 0.7
    return [out]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather x (1-D) into the dropout.
FUSE = ("all-gather{tensor=x_ptr dim=0 size=n_elements}", 0, 0)
