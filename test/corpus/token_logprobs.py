"""Log-probabilities of a few chosen token ids per row of logits, in the
style of vLLM's v1 sampler kernels: one request row per program
(`req_idx = tl.program_id(0)`, `row_ptr = logits_ptr + req_idx *
logits_stride`), a first pass keeping a running max with
`tl.max(tl.maximum(block, max_val))` from a `float("-inf")` scalar, a second
pass summing the shifted exponentials in fp32 (masked lanes zeroed with
`tl.where`), then the chosen ids loaded as a block padded to a power of two
(`PADDED_K: tl.constexpr`, `k_mask`) and their logits gathered from the same
row with `tl.load(row_ptr + token_ids, mask=...)`, the ids bounded by the
mask to `[0, vocab_size)` (verify-addresses refuses an offset read from
memory that nothing bounds)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _token_logprobs_kernel(
    output_ptr,
    logits_ptr,
    logits_stride,
    token_ids_ptr,
    num_ids,
    vocab_size,
    BLOCK_SIZE: tl.constexpr,
    PADDED_K: tl.constexpr,
):
    req_idx = tl.program_id(0)
    row_ptr = logits_ptr + req_idx * logits_stride

    max_val = float("-inf")
    for i in range(0, vocab_size, BLOCK_SIZE):
        block = i + tl.arange(0, BLOCK_SIZE)
        logits = tl.load(row_ptr + block, mask=block < vocab_size, other=float("-inf"))
        max_val = tl.max(tl.maximum(logits, max_val))
    max_val = max_val.to(tl.float32)

    sum_exp = 0.0
    for i in range(0, vocab_size, BLOCK_SIZE):
        block = i + tl.arange(0, BLOCK_SIZE)
        logits = tl.load(row_ptr + block, mask=block < vocab_size, other=0.0).to(tl.float32)
        e = tl.where(block < vocab_size, tl.exp(logits - max_val), 0.0)
        sum_exp += tl.sum(e)
    lse = max_val + tl.log(sum_exp)

    k_offset = tl.arange(0, PADDED_K)
    k_mask = k_offset < num_ids
    token_ids = tl.load(token_ids_ptr + req_idx * num_ids + k_offset, mask=k_mask, other=0)
    # ids outside the vocabulary are masked: read from memory, they would
    # otherwise be an offset nothing keeps inside the row
    id_mask = k_mask & (token_ids >= 0) & (token_ids < vocab_size)
    chosen = tl.load(row_ptr + token_ids, mask=id_mask).to(tl.float32)
    tl.store(output_ptr + req_idx * num_ids + k_offset, chosen - lse, mask=k_mask)


BLOCK_SIZE = 64


def compute_token_logprobs(kernel, logits: torch.Tensor, token_ids: torch.Tensor) -> torch.Tensor:
    num_reqs, vocab_size = logits.shape
    num_ids = token_ids.shape[1]
    logprobs = torch.empty((num_reqs, num_ids), dtype=torch.float32, device=logits.device)
    kernel[(num_reqs,)](
        logprobs,
        logits,
        logits.stride(0),
        token_ids,
        num_ids,
        vocab_size,
        BLOCK_SIZE=BLOCK_SIZE,
        PADDED_K=triton.next_power_of_2(num_ids),
    )
    return logprobs


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    num_reqs, vocab_size, num_ids = 6, 300, 5
    logits = torch.randn(num_reqs, vocab_size, generator=g) * 3.0
    token_ids = torch.randint(0, vocab_size, (num_reqs, num_ids), generator=g)
    out = torch.empty(num_reqs, num_ids)
    return {
        "kernel": "_token_logprobs_kernel",
        "grid": (num_reqs,),
        "args": [out, logits, logits.stride(0), token_ids, num_ids, vocab_size],
        "kwargs": {"BLOCK_SIZE": BLOCK_SIZE, "PADDED_K": 8},
        "outputs": [0],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    _, logits, _, token_ids = case["args"][:4]
    return [torch.log_softmax(logits, dim=-1).gather(1, token_ids)]


# --- workload: all-gather the logits' rows (each rank computed the logits of
# its own requests); the chosen ids are every rank's ------------------------

KERNEL = _token_logprobs_kernel
PLANS = ["all-gather{tensor=logits_ptr dim=0}"]
COLLECTIVES = {"logits_ptr": "logits"}
REQS, VOCAB, NUM_IDS = 10, 300, 5


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(REQS, world, rank)
    gi = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"logits": torch.randn(rows, VOCAB, generator=g) * 3.0,
            "token_ids": torch.randint(0, VOCAB, (REQS, NUM_IDS), generator=gi)}


def launch(kernel, logits, token_ids):
    return compute_token_logprobs(kernel, logits, token_ids)
