"""Embedding lookup in the style of FlagGems' embedding forward: one token
per program, pointers moved in place (`out_ptr += pid * N`, `indices_ptr +=
pid`), the row id loaded from the index tensor and the table pointer moved to
that row (`weight_ptr += row_idx * N`), the row width `N` a constexpr, and a
positional mask to `tl.load`/`tl.store`."""

import torch
import triton
import triton.language as tl


@triton.jit
def embedding_kernel(
    out_ptr,  # pointer to the output rows
    indices_ptr,  # pointer to the token ids
    weight_ptr,  # pointer to the embedding table
    N: tl.constexpr,  # embedding dim
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(0)
    out_ptr += pid * N
    indices_ptr += pid

    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N

    row_idx = tl.load(indices_ptr)
    weight_ptr += row_idx * N
    row = tl.load(weight_ptr + cols, mask, other=0.0)
    tl.store(out_ptr + cols, row, mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    vocab, dim, tokens = 12, 48, 9
    weight = torch.randn(vocab, dim, generator=g)
    ids = torch.randint(0, vocab, (tokens,), generator=g)
    out = torch.empty(tokens, dim)
    return {
        "kernel": "embedding_kernel",
        "grid": (tokens,),
        "args": [out, ids, weight],
        "kwargs": {"N": dim, "BLOCK_SIZE": 64},
        "outputs": [0],
        "atol": 0.0,
        "rtol": 0.0,
    }


def reference(case: dict) -> list:
    _, ids, weight = case["args"]
    return [torch.nn.functional.embedding(ids, weight)]


# --- workload: all-gather the rows of a vocab-sharded embedding table -------
# The rows a program reads come from the index tensor: it waits for the chunk
# of the row it loaded. N is a constexpr, so the plan names it as the row
# stride (stride=N).

KERNEL = embedding_kernel
PLANS = ["all-gather{tensor=weight_ptr dim=0 stride=N}"]
COLLECTIVES = {"weight_ptr": "weight"}
VOCAB, DIM, TOKENS = 13, 48, 10


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(VOCAB, world, rank)
    gi = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"weight": torch.randn(rows, DIM, generator=g),
            "ids": torch.randint(0, VOCAB, (TOKENS,), generator=gi)}


def launch(kernel, weight, ids):
    out = torch.empty(ids.shape[0], weight.shape[1], dtype=weight.dtype, device=weight.device)
    kernel[(ids.shape[0],)](out, ids, weight, N=weight.shape[1], BLOCK_SIZE=triton.next_power_of_2(weight.shape[1]))
    return out
