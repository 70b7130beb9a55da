"""RMSNorm over token rows in the style of vLLM's batch-invariant Triton
kernels: one token row per program (`tl.program_id(0).to(tl.int64)`), row
base pointers `in_ptr + token_idx * in_row_stride` computed once, and two
passes over the hidden dim in BLOCK_SIZE steps so any hidden size fits: the
first accumulates the sum of squares in fp32 into a one-element block
(`tl.zeros([1], dtype=tl.float32)`, masked lanes dropped with `tl.where`),
the second reloads the row, scales it by `1 / sqrt(mean + variance_epsilon)`
and the weight, and casts back to the input's dtype."""

import torch
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(
    out_ptr,
    in_ptr,
    weight_ptr,
    in_row_stride,
    out_row_stride,
    hidden_size,
    variance_epsilon,
    BLOCK_SIZE: tl.constexpr,
):
    token_idx = tl.program_id(0).to(tl.int64)
    in_row_ptr = in_ptr + token_idx * in_row_stride
    out_row_ptr = out_ptr + token_idx * out_row_stride

    # Pass 1: sum of squares, accumulated in fp32 in a fixed order
    sq_sum = tl.zeros([1], dtype=tl.float32)
    for start in range(0, hidden_size, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < hidden_size
        x = tl.load(in_row_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        sq_sum += tl.sum(tl.where(mask, x * x, 0.0))

    variance = sq_sum / hidden_size
    inv_rms = 1.0 / tl.sqrt(variance + variance_epsilon)

    # Pass 2: normalise and scale, written in the input's dtype
    for start in range(0, hidden_size, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < hidden_size
        x = tl.load(in_row_ptr + cols, mask=mask, other=0.0)
        w = tl.load(weight_ptr + cols, mask=mask, other=1.0)
        y = x.to(tl.float32) * inv_rms * w.to(tl.float32)
        tl.store(out_row_ptr + cols, y.to(x.dtype), mask=mask)


BLOCK_SIZE = 32
VARIANCE_EPSILON = 1e-6


def rms_norm(kernel, x: torch.Tensor, weight: torch.Tensor, variance_epsilon: float) -> torch.Tensor:
    x_2d = x.reshape(-1, x.shape[-1])
    num_tokens, hidden_size = x_2d.shape
    out = torch.empty_like(x_2d)
    kernel[(num_tokens,)](out, x_2d, weight, x_2d.stride(0), out.stride(0), hidden_size, variance_epsilon,
                          BLOCK_SIZE=BLOCK_SIZE)
    return out.reshape(x.shape)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    num_tokens, hidden_size = 9, 100  # not a multiple of BLOCK_SIZE
    x = torch.randn(num_tokens, hidden_size, generator=g)
    w = torch.rand(hidden_size, generator=g) + 0.5
    out = torch.empty(num_tokens, hidden_size)
    return {
        "kernel": "rms_norm_kernel",
        "grid": (num_tokens,),
        "args": [out, x, w, x.stride(0), out.stride(0), hidden_size, VARIANCE_EPSILON],
        "kwargs": {"BLOCK_SIZE": BLOCK_SIZE},
        "outputs": [0],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    _, x, w = case["args"][:3]
    return [x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + VARIANCE_EPSILON) * w]


# --- workload: all-gather the hidden states' token rows (sequence parallel);
# no row-count parameter, so the plan reads it from in_ptr's shape ----------

KERNEL = rms_norm_kernel
PLANS = ["all-gather{tensor=in_ptr dim=0}"]
COLLECTIVES = {"in_ptr": "x"}
TOKENS, HIDDEN = 11, 100


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(TOKENS, world, rank)
    gw = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"x": torch.randn(rows, HIDDEN, generator=g), "weight": torch.rand(HIDDEN, generator=gw) + 0.5}


def launch(kernel, x, weight):
    return rms_norm(kernel, x, weight, VARIANCE_EPSILON)
