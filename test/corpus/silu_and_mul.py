"""SiLU-and-mul over a fused gate/up projection, in the style of vLLM's
Triton activation kernels: `input` is `[num_tokens, 2 * d]` (gate half, then
up half) and the output `[num_tokens, d]`; one token per program along grid
axis 0 (`tl.program_id(0).to(tl.int64)`), a block of the hidden dim along
axis 1; the up half is read at `input_ptrs + d`; silu is a jit helper written
as `x * (1.0 / (1.0 + tl.exp(-x)))` on the fp32 gate, cast to a
`compute_type: tl.constexpr` dtype before the product."""

import torch
import triton
import triton.language as tl


@triton.jit
def silu(x_tile):
    return x_tile * (1.0 / (1.0 + tl.exp(-x_tile)))


@triton.jit
def silu_and_mul_kernel(
        output,  # [num_tokens, d]
        input,  # [num_tokens, 2 * d]
        stride_om,
        stride_im,
        d,
        BLOCK_D: tl.constexpr,
        compute_type: tl.constexpr):
    token_idx = tl.program_id(0).to(tl.int64)
    pid_d = tl.program_id(1)

    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    mask_d = offs_d < d

    input_ptrs = input + token_idx * stride_im + offs_d
    output_ptrs = output + token_idx * stride_om + offs_d

    x_tile = tl.load(input_ptrs, mask=mask_d, other=0.0).to(dtype=tl.float32)
    y_tile = tl.load(input_ptrs + d, mask=mask_d, other=0.0)

    # silu and mul
    out_tile = silu(x_tile).to(dtype=compute_type)
    out_tile = out_tile * y_tile

    tl.store(output_ptrs, out_tile, mask=mask_d)


BLOCK_D = 32


def silu_and_mul(kernel, x: torch.Tensor) -> torch.Tensor:
    num_tokens, d = x.shape[0], x.shape[1] // 2
    out = torch.empty((num_tokens, d), dtype=x.dtype, device=x.device)
    grid = (num_tokens, triton.cdiv(d, BLOCK_D))
    kernel[grid](out, x, out.stride(0), x.stride(0), d, BLOCK_D=BLOCK_D, compute_type=tl.float32)
    return out


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    num_tokens, d = 7, 72
    x = torch.randn(num_tokens, 2 * d, generator=g)
    out = torch.empty(num_tokens, d)
    return {
        "kernel": "silu_and_mul_kernel",
        "grid": (num_tokens, triton.cdiv(d, BLOCK_D)),
        "args": [out, x, out.stride(0), x.stride(0), d],
        "kwargs": {"BLOCK_D": BLOCK_D, "compute_type": tl.float32},
        "outputs": [0],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    x = case["args"][1]
    d = x.shape[1] // 2
    return [torch.nn.functional.silu(x[:, :d]) * x[:, d:]]


# --- workload: all-gather the tokens of the gate/up projection (sequence
# parallel), the activation over every token ---------------------------------

KERNEL = silu_and_mul_kernel
PLANS = ["all-gather{tensor=input dim=0}"]
COLLECTIVES = {"input": "x"}
TOKENS, D = 10, 72


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(TOKENS, world, rank)
    return {"x": torch.randn(rows, 2 * D, generator=g)}


def launch(kernel, x):
    return silu_and_mul(kernel, x)
