"""Rotary position embedding (non-interleaved halves), one (token, head)
per program: the row pointer moves by `token * stride_t + head * stride_h`,
the two halves of the head dim use an annotated local constexpr."""

import torch
import triton
import triton.language as tl


@triton.jit
def rotary_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, stride_t, stride_h, stride_ct,
                  HEAD_DIM: tl.constexpr):
    token = tl.program_id(0)
    head = tl.program_id(1)
    HALF: tl.constexpr = HEAD_DIM // 2
    offs = tl.arange(0, HALF)
    row = x_ptr + token * stride_t + head * stride_h
    x1 = tl.load(row + offs)
    x2 = tl.load(row + HALF + offs)
    cos = tl.load(cos_ptr + token * stride_ct + offs)
    sin = tl.load(sin_ptr + token * stride_ct + offs)
    out_row = out_ptr + token * stride_t + head * stride_h
    tl.store(out_row + offs, x1 * cos - x2 * sin)
    tl.store(out_row + HALF + offs, x2 * cos + x1 * sin)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    tokens, heads, dim = 6, 3, 16
    x = torch.randn(tokens, heads, dim, generator=g)
    angles = torch.rand(tokens, dim // 2, generator=g) * 6.0
    cos, sin = angles.cos().contiguous(), angles.sin().contiguous()
    out = torch.empty_like(x)
    return {
        "kernel": "rotary_kernel",
        "grid": (tokens, heads),
        "args": [x, cos, sin, out, x.stride(0), x.stride(1), cos.stride(0)],
        "kwargs": {"HEAD_DIM": dim},
        "outputs": [3],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    x, cos, sin = case["args"][:3]
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    c, s = cos[:, None, :], sin[:, None, :]
    return [torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather the tokens of x (sequence parallel).
FUSE = ("all-gather{tensor=x_ptr dim=0}", 0, 0)
