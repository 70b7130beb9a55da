"""MoE dispatch as fused-MoE kernels read their input: each program takes
BLOCK_T slots of the expert-sorted routing table, whose entries are
``token * TOP_K + k`` (padded with ``num_slots``), and reads token
``entry // TOP_K``'s row of X, scaled by the slot's routing weight. The
rows a program reads come from the table; the plan gathers X's rows, and
each program waits for the range of the token ids it loaded."""

import torch
import triton
import triton.language as tl

from syncopate.runtime.workload import shard_bounds

TOKENS, HIDDEN, TOP_K = 11, 24, 2
BLOCK_T, BLOCK_H = 4, 16


@triton.jit
def moe_dispatch_kernel(x_ptr, sorted_ids_ptr, weights_ptr, out_ptr, num_slots, hidden, stride_xm, stride_om,
                        TOP_K: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_H: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs_slot = pid * BLOCK_T + tl.arange(0, BLOCK_T)
    entries = tl.load(sorted_ids_ptr + offs_slot)
    valid = entries < num_slots
    scale = tl.load(weights_ptr + offs_slot, mask=valid, other=0.0)
    for h in range(0, tl.cdiv(hidden, BLOCK_H)):
        offs_h = h * BLOCK_H + tl.arange(0, BLOCK_H)
        mask = valid[:, None] & (offs_h[None, :] < hidden)
        x = tl.load(x_ptr + entries[:, None] // TOP_K * stride_xm + offs_h[None, :], mask=mask, other=0.0)
        tl.store(out_ptr + offs_slot[:, None] * stride_om + offs_h[None, :], x * scale[:, None],
                 mask=(offs_slot[:, None] < num_slots) & (offs_h[None, :] < hidden))


KERNEL = moe_dispatch_kernel
PLANS = ["all-gather{tensor=x_ptr dim=0}"]
COLLECTIVES = {"x_ptr": "x"}


def make_inputs(rank, world, seed):
    """Rank's shard of X's token rows; the routing (the same on every rank)
    sorts the TOKENS * TOP_K slots by expert and pads the table to whole blocks."""
    _, rows = shard_bounds(TOKENS, world, rank)
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    x = torch.randn(rows, HIDDEN, generator=g)
    gr = torch.Generator().manual_seed(seed * 1000 + 999)
    experts = torch.randint(0, 4, (TOKENS * TOP_K,), generator=gr)
    order = torch.argsort(experts, stable=True).to(torch.int32)
    slots = triton.cdiv(order.numel(), BLOCK_T) * BLOCK_T
    padded = torch.full((slots,), TOKENS * TOP_K, dtype=torch.int32)
    padded[: order.numel()] = order
    weights = torch.rand(slots, generator=gr)
    return {"x": x, "sorted_ids": padded, "weights": weights}


def launch(kernel, x, sorted_ids, weights):
    """Expert-sorted, weighted copies of X's token rows (X gathered)."""
    num_slots = TOKENS * TOP_K
    out = torch.zeros(sorted_ids.numel(), x.shape[1], device=x.device)
    grid = (triton.cdiv(sorted_ids.numel(), BLOCK_T),)
    kernel[grid](x, sorted_ids.to(x.device), weights.to(x.device), out, num_slots, x.shape[1], x.stride(0),
                 out.stride(0), TOP_K=TOP_K, BLOCK_T=BLOCK_T, BLOCK_H=BLOCK_H)
    return out
