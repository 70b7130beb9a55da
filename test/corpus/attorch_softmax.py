"""Softmax / log-softmax forward in the style of attorch: BLOCK_SIZE_BATCH
rows per program and the whole feature dim in one block
(`BLOCK_SIZE_FEAT = next_power_of_2(feat_dim)`), `*_pointer` parameters moved
in place by 2-D offsets (`input_pointer += input_batch_stride *
batch_offset[:, None] + ...`), a contiguous output addressed with `feat_dim`
as its row stride, masked lanes loaded as `-inf`, in-place `input -=
tl.max(input, axis=1)[:, None]`, a constexpr `log` flag choosing the output
in an `if`/`else`, a host-side batch-block heuristic taking the argument
dict, and a Google-style docstring."""

from typing import Dict

import torch
import triton
import triton.language as tl
from triton import next_power_of_2


def BLOCK_SIZE_BATCH_heuristic(args: Dict) -> int:
    """
    Several rows per program when the features are few.

    Args:
        args: Arguments to the softmax kernel.

    Returns:
        Batch block size.
    """
    return (min(max(1, next_power_of_2(args['batch_dim'] // 4)), 4)
            if args['feat_dim'] < 64 else 1)


@triton.jit
def softmax_forward_kernel(
    input_pointer, output_pointer,
    batch_dim, feat_dim,
    input_batch_stride, input_feat_stride,
    log: tl.constexpr,
    BLOCK_SIZE_BATCH: tl.constexpr, BLOCK_SIZE_FEAT: tl.constexpr,
    ):
    """
    Normalizes the input using softmax along the feature dimension.

    Args:
        input_pointer: Pointer to the input to normalize.
            The input must be of shape [batch_dim, feat_dim].
        output_pointer: Pointer to a container the result is written to.
            The container must be of shape [batch_dim, feat_dim] and contiguous.
        batch_dim: Batch dimension.
        feat_dim: Dimensionality of the features.
        input_batch_stride: Stride necessary to jump one element along the
            input's batch dimension.
        input_feat_stride: Stride necessary to jump one element along the
            input's feature dimension.
        log: Flag for taking the log of the softmax.
        BLOCK_SIZE_BATCH: Block size across the batch dimension.
        BLOCK_SIZE_FEAT: Block size across the feature dimension.
    """
    # This program processes BLOCK_SIZE_BATCH rows and BLOCK_SIZE_FEAT columns.
    batch_pid = tl.program_id(axis=0)

    batch_offset = batch_pid * BLOCK_SIZE_BATCH + tl.arange(0, BLOCK_SIZE_BATCH)
    feat_offset = tl.arange(0, BLOCK_SIZE_FEAT)

    batch_mask = batch_offset < batch_dim
    feat_mask = feat_offset < feat_dim

    input_pointer += (input_batch_stride * batch_offset[:, None] +
                      input_feat_stride * feat_offset[None, :])
    output_pointer += feat_dim * batch_offset[:, None] + feat_offset[None, :]

    input = tl.load(input_pointer, mask=batch_mask[:, None] & feat_mask[None, :],
                    other=-float('inf')).to(tl.float32)
    input -= tl.max(input, axis=1)[:, None]
    numerator = tl.exp(input)
    denominator = tl.sum(numerator, axis=1)[:, None]

    if log:
        output = input - tl.log(denominator)

    else:
        output = numerator / denominator

    tl.store(output_pointer, output, mask=batch_mask[:, None] & feat_mask[None, :])


def softmax(input, log, kernel=softmax_forward_kernel):
    batch_dim, feat_dim = input.shape
    output = torch.empty((batch_dim, feat_dim), dtype=input.dtype, device=input.device)
    args = {'batch_dim': batch_dim, 'feat_dim': feat_dim}
    BLOCK_SIZE_BATCH = BLOCK_SIZE_BATCH_heuristic(args)
    grid = lambda META: (triton.cdiv(batch_dim, META['BLOCK_SIZE_BATCH']),)
    kernel[grid](input, output, batch_dim, feat_dim, *input.stride(), log=log,
                 BLOCK_SIZE_BATCH=BLOCK_SIZE_BATCH, BLOCK_SIZE_FEAT=next_power_of_2(feat_dim))
    return output


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    batch_dim, feat_dim = 11, 40
    # a transposed view: the feature stride is not 1
    x = (torch.randn(feat_dim, batch_dim, generator=g) * 3).t()
    out = torch.empty(batch_dim, feat_dim)
    return {
        "kernel": "softmax_forward_kernel",
        "grid": (triton.cdiv(batch_dim, 2),),
        "args": [x, out, batch_dim, feat_dim, x.stride(0), x.stride(1)],
        "kwargs": {"log": False, "BLOCK_SIZE_BATCH": 2, "BLOCK_SIZE_FEAT": 64},
        "outputs": [1],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    x = case["args"][0]
    return [torch.softmax(x, dim=1)]


# --- workload: all-gather the batch rows into a log-softmax (several rows
# per program: 12 features is under the heuristic's 64) --------------------

KERNEL = softmax_forward_kernel
PLANS = ["all-gather{tensor=input_pointer dim=0 size=batch_dim}"]
COLLECTIVES = {"input_pointer": "input"}
BATCH, FEAT = 15, 12


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(BATCH, world, rank)
    return {"input": torch.randn(rows, FEAT, generator=g) * 3}


def launch(kernel, input):
    return softmax(input, True, kernel=kernel)
