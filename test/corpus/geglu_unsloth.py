"""GEGLU forward in the style of Unsloth's: the gate `e` and the up
projection `g` are flattened, one BLOCK_SIZE block of elements per program,
and a `LONG_INDEXING` constexpr chooses 64-bit offsets for tensors past 2**31
elements: the offsets are assigned in both arms of the `if`, widened with
`.to(tl.int64)` in one (the program id and the `tl.arange` alike, and the
element count cast with `tl.cast`), plain int32 in the other; exact GELU
through `erf` in fp32, the result cast back to the input's dtype before the
product. The host picks LONG_INDEXING from the element count."""

import math

import torch
import triton
import triton.language as tl

INT32_SAFE_ELEMENTS = 2**31 - 4 * 1024


@triton.jit
def _exact_geglu_forward(e, g, h, n_elements, BLOCK_SIZE: tl.constexpr, LONG_INDEXING: tl.constexpr):
    block_idx = tl.program_id(0)
    if LONG_INDEXING:
        offsets = block_idx.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE).to(tl.int64)
        n_elements = tl.cast(n_elements, tl.int64)
    else:
        offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    e_row = tl.load(e + offsets, mask=mask, other=0).to(tl.float32)
    g_row = tl.load(g + offsets, mask=mask, other=0)

    # gelu(e) = 0.5 * e * (1 + erf(e / sqrt(2)))
    f_row = 0.5 * e_row * (tl.math.erf(tl.math.rsqrt(2.0) * e_row) + 1.0)
    f_row = f_row.to(g_row.dtype)
    h_row = f_row * g_row

    tl.store(h + offsets, h_row, mask=mask)


def make_case(seed: int) -> dict:
    gen = torch.Generator().manual_seed(seed)
    n_tokens, hidden = 12, 40  # 480 elements: the last block of 128 is partial
    e = torch.randn(n_tokens * hidden, generator=gen)  # flattened, as the host wrapper views them
    g = torch.randn(n_tokens * hidden, generator=gen)
    h = torch.empty(n_tokens * hidden)
    n = e.numel()
    BLOCK_SIZE = 128
    return {
        "kernel": "_exact_geglu_forward",
        "grid": (triton.cdiv(n, BLOCK_SIZE),),
        "args": [e, g, h, n],
        "kwargs": {"BLOCK_SIZE": BLOCK_SIZE, "LONG_INDEXING": n > INT32_SAFE_ELEMENTS},
        "outputs": [2],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    e, g = case["args"][:2]
    return [0.5 * e * (1.0 + torch.erf(e / math.sqrt(2.0))) * g]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather the gate's elements (a flat
# view: the kernel indexes elements, so a rank holds a slice of them)
FUSE = ("all-gather{tensor=e dim=0 size=n_elements}", 0, 0)
