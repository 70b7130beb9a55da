"""RMSNorm backward in the style of attorch: BLOCK_SIZE_BATCH rows per
program over `[batch_dim, feat_dim]` tensors with a stride parameter per dim,
every `*_pointer` moved in place by 2-D offsets, the saved inverse RMS loaded
per row, a constexpr `scale_by_weight` flag with both arms bound
(`weight * output_grad` or the gradient itself), the input gradient from row
sums broadcast with `[:, None]`, and the weight gradient written as one
partial row per program (`weight_grad_pointer += weight_grad_batch_stride *
batch_pid + ...`, summed on the host)."""

import torch
import triton
import triton.language as tl
from triton import next_power_of_2


@triton.jit
def rms_norm_backward_kernel(
    output_grad_pointer, input_pointer, inv_rms_pointer, weight_pointer,
    input_grad_pointer, weight_grad_pointer,
    batch_dim, feat_dim,
    output_grad_batch_stride, output_grad_feat_stride,
    input_batch_stride, input_feat_stride,
    input_grad_batch_stride, input_grad_feat_stride,
    weight_grad_batch_stride, weight_grad_feat_stride,
    scale_by_weight: tl.constexpr,
    BLOCK_SIZE_BATCH: tl.constexpr, BLOCK_SIZE_FEAT: tl.constexpr,
    ):
    """
    Calculates the input gradient of root mean square normalization.

    Args:
        output_grad_pointer: Pointer to the normalization's output gradients.
            The output gradients must be of shape [batch_dim, feat_dim].
        input_pointer: Pointer to the input, of shape [batch_dim, feat_dim].
        inv_rms_pointer: Pointer to the input's inverse root mean square,
            of shape [batch_dim].
        weight_pointer: Pointer to the weights if scale_by_weight is True,
            of shape [feat_dim].
        input_grad_pointer: Pointer to a container the input's gradients are
            written to, of shape [batch_dim, feat_dim].
        weight_grad_pointer: Pointer to a container each program's partial
            weight gradients are written to if scale_by_weight is True,
            of shape [batch_dim/BLOCK_SIZE_BATCH, feat_dim] (to be summed).
        batch_dim: Batch dimension.
        feat_dim: Dimensionality of the features.
        *_batch_stride, *_feat_stride: Strides of each tensor along its
            batch and feature dimensions.
        scale_by_weight: Flag for the weights having scaled the output.
        BLOCK_SIZE_BATCH: Block size across the batch dimension.
        BLOCK_SIZE_FEAT: Block size across the feature dimension.
    """
    # This program processes BLOCK_SIZE_BATCH rows and BLOCK_SIZE_FEAT columns.
    batch_pid = tl.program_id(axis=0)

    batch_offset = batch_pid * BLOCK_SIZE_BATCH + tl.arange(0, BLOCK_SIZE_BATCH)
    feat_offset = tl.arange(0, BLOCK_SIZE_FEAT)

    batch_mask = batch_offset < batch_dim
    feat_mask = feat_offset < feat_dim
    mask = batch_mask[:, None] & feat_mask[None, :]

    output_grad_pointer += (output_grad_batch_stride * batch_offset[:, None] +
                            output_grad_feat_stride * feat_offset[None, :])
    input_pointer += (input_batch_stride * batch_offset[:, None] +
                      input_feat_stride * feat_offset[None, :])
    input_grad_pointer += (input_grad_batch_stride * batch_offset[:, None] +
                           input_grad_feat_stride * feat_offset[None, :])

    output_grad = tl.load(output_grad_pointer, mask=mask, other=0.).to(tl.float32)
    input = tl.load(input_pointer, mask=mask, other=0.).to(tl.float32)
    inv_rms = tl.load(inv_rms_pointer + batch_offset, mask=batch_mask, other=0.)
    normalized = input * inv_rms[:, None]

    if scale_by_weight:
        weight = tl.load(weight_pointer + feat_offset, mask=feat_mask, other=0.)
        scaled_grad = weight * output_grad

    else:
        scaled_grad = output_grad

    # d/dx of x * r(x), r = (mean(x^2) + eps)^(-1/2)
    row_dot = tl.sum(normalized * scaled_grad, axis=1)
    input_grad = inv_rms[:, None] * (scaled_grad - normalized * row_dot[:, None] / feat_dim)
    tl.store(input_grad_pointer, input_grad, mask=mask)

    if scale_by_weight:
        weight_grad_pointer += (weight_grad_batch_stride * batch_pid +
                                weight_grad_feat_stride * feat_offset)
        tl.store(weight_grad_pointer, tl.sum(output_grad * normalized, axis=0), mask=feat_mask)


def rms_norm_backward(output_grad, input, inv_rms, weight, BLOCK_SIZE_BATCH=4, kernel=rms_norm_backward_kernel):
    batch_dim, feat_dim = input.shape
    n_programs = triton.cdiv(batch_dim, BLOCK_SIZE_BATCH)
    input_grad = torch.empty_like(input)
    weight_grad = torch.empty((n_programs, feat_dim), dtype=torch.float32, device=input.device)
    kernel[(n_programs,)](output_grad, input, inv_rms, weight, input_grad, weight_grad,
                          batch_dim, feat_dim,
                          *output_grad.stride(), *input.stride(), *input_grad.stride(), *weight_grad.stride(),
                          scale_by_weight=weight is not None,
                          BLOCK_SIZE_BATCH=BLOCK_SIZE_BATCH, BLOCK_SIZE_FEAT=next_power_of_2(feat_dim))
    return input_grad, weight_grad.sum(dim=0)


def _inv_rms(x, eps=1e-6):
    return torch.rsqrt((x * x).mean(dim=1) + eps)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    batch_dim, feat_dim = 10, 36
    x = torch.randn(batch_dim, feat_dim, generator=g)
    dy = torch.randn(batch_dim, feat_dim, generator=g)
    w = torch.rand(feat_dim, generator=g) + 0.5
    inv_rms = _inv_rms(x)
    dx, dw = torch.empty(batch_dim, feat_dim), torch.empty(triton.cdiv(batch_dim, 4), feat_dim)
    return {
        "kernel": "rms_norm_backward_kernel",
        "grid": (triton.cdiv(batch_dim, 4),),
        "args": [dy, x, inv_rms, w, dx, dw, batch_dim, feat_dim,
                 *dy.stride(), *x.stride(), *dx.stride(), *dw.stride()],
        "kwargs": {"scale_by_weight": True, "BLOCK_SIZE_BATCH": 4, "BLOCK_SIZE_FEAT": 64},
        "outputs": [4, 5],
        "atol": 1e-4,
        "rtol": 1e-4,
    }


def reference(case: dict) -> list:
    dy, x, _, w = case["args"][:4]
    bs = case["kwargs"]["BLOCK_SIZE_BATCH"]
    x = x.clone().requires_grad_(True)
    inv_rms = _inv_rms(x)
    y = x * inv_rms[:, None] * w
    (dx,) = torch.autograd.grad(y, x, dy)
    partial = dy * x.detach() * inv_rms.detach()[:, None]
    dw = torch.stack([partial[i:i + bs].sum(dim=0) for i in range(0, x.shape[0], bs)])
    return [dx, dw]


# --- workload: all-gather the batch rows of the output gradients, of the
# saved input and of its saved inverse RMS (sequence-parallel activations and
# statistics); the weight gradient is summed over every row ----------------

KERNEL = rms_norm_backward_kernel
PLANS = ["all-gather{tensor=output_grad_pointer dim=0 size=batch_dim}",
         "all-gather{tensor=input_pointer dim=0 size=batch_dim name=ag_input}",
         "all-gather{tensor=inv_rms_pointer dim=0 size=batch_dim name=ag_inv_rms}"]
COLLECTIVES = {"output_grad_pointer": "output_grad", "input_pointer": "input", "inv_rms_pointer": "inv_rms"}
BATCH, FEAT = 14, 36


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(BATCH, world, rank)
    gw = torch.Generator().manual_seed(seed * 1000 + 999)
    x = torch.randn(rows, FEAT, generator=g)
    return {"output_grad": torch.randn(rows, FEAT, generator=g), "input": x,
            "inv_rms": _inv_rms(x), "weight": torch.rand(FEAT, generator=gw) + 0.5}


def launch(kernel, output_grad, input, inv_rms, weight):
    return rms_norm_backward(output_grad, input, inv_rms, weight, kernel=kernel)
