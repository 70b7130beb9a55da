"""MoE token gather: each program copies BLOCK_T routed tokens' rows, the
token ids read from a routing table (`sorted_token_ids`), into contiguous
expert-input rows. The rows it reads depend on loaded data."""

import torch
import triton
import triton.language as tl


@triton.jit
def moe_gather_kernel(x_ptr, sorted_token_ids_ptr, out_ptr, num_tokens, hidden, stride_xt, stride_ot,
                      BLOCK_T: tl.constexpr, BLOCK_H: tl.constexpr):
    pid = tl.program_id(0)
    offs_t = pid * BLOCK_T + tl.arange(0, BLOCK_T)
    token_mask = offs_t < num_tokens
    token_ids = tl.load(sorted_token_ids_ptr + offs_t, mask=token_mask, other=0)
    for h0 in range(0, hidden, BLOCK_H):
        offs_h = h0 + tl.arange(0, BLOCK_H)
        mask = token_mask[:, None] & (offs_h[None, :] < hidden)
        rows = tl.load(x_ptr + token_ids[:, None] * stride_xt + offs_h[None, :], mask=mask, other=0.0)
        tl.store(out_ptr + offs_t[:, None] * stride_ot + offs_h[None, :], rows, mask=mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    tokens, hidden = 13, 48
    x = torch.randn(tokens, hidden, generator=g)
    ids = torch.randperm(tokens, generator=g).to(torch.int32)
    out = torch.empty(tokens, hidden)
    return {
        "kernel": "moe_gather_kernel",
        "grid": (triton.cdiv(tokens, 4),),
        "args": [x, ids, out, tokens, hidden, x.stride(0), out.stride(0)],
        "kwargs": {"BLOCK_T": 4, "BLOCK_H": 16},
        "outputs": [2],
        "atol": 0.0,
        "rtol": 0.0,
    }


def reference(case: dict) -> list:
    x, ids = case["args"][:2]
    return [x[ids.long()]]


# Fusion (test/unit/corpus/test_corpus_fusion.py): all-gather x's token rows. The rows a
# program reads come from the routing table: each program waits for the range
# [min, max + 1) of the token ids it loaded (ir/analysis/loaded_rows.py).
FUSE = ("all-gather{tensor=x_ptr dim=0}", 0, 0)
