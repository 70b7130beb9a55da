"""KL-divergence loss forward in the style of Liger-Kernel: one row of
predictions (log-probabilities) per program, `ptr += pid * stride` for the
prediction, target and loss rows, a `for i in range(0, n_cols, BLOCK_SIZE)`
loop over column blocks, the reduction mode chosen by module-level
`tl.constexpr(...)` globals compared with a constexpr parameter whose default
is one of them, and a `log_target: tl.constexpr = False` switch. With a
reduction the row's sum is stored at the row's loss slot; without one the
elementwise loss is stored."""

import torch
import triton
import triton.language as tl

_REDUCTION_MODE_NONE: tl.constexpr = tl.constexpr(0)
_REDUCTION_MODE_SUM: tl.constexpr = tl.constexpr(1)
_REDUCTION_MODE_MEAN: tl.constexpr = tl.constexpr(2)
_REDUCTION_MODE_BATCHMEAN: tl.constexpr = tl.constexpr(3)


@triton.jit
def _kldiv_kernel_forward(
    y_ptr,  # [B, S], predictions in log-space
    y_stride,
    gt_ptr,  # [B, S], ground truth
    gt_stride,
    loss_ptr,  # [B], or [B, S] without a reduction
    loss_stride,
    n_cols,
    eps,
    BLOCK_SIZE: tl.constexpr,
    log_target: tl.constexpr = False,
    reduction: tl.constexpr = _REDUCTION_MODE_BATCHMEAN,
):
    pid = tl.program_id(0).to(tl.int64)
    y_ptr += pid * y_stride
    gt_ptr += pid * gt_stride
    loss_ptr += pid * loss_stride

    base_offsets = tl.arange(0, BLOCK_SIZE)

    loss_sum = 0.0
    for i in range(0, n_cols, BLOCK_SIZE):
        offsets = i + base_offsets
        mask = offsets < n_cols
        y = tl.load(y_ptr + offsets, mask=mask, other=0.0)
        y_true = tl.load(gt_ptr + offsets, mask=mask, other=0.0)

        # KL(y_true || y) with y in log-space
        if not log_target:
            loss = y_true * (tl.log(tl.maximum(y_true, eps)) - y)
        else:
            loss = tl.exp(y_true) * (y_true - y)

        if reduction == _REDUCTION_MODE_NONE:
            tl.store(loss_ptr + offsets, loss, mask=mask)
        else:
            loss_sum += tl.sum(loss, axis=0)

    if reduction != _REDUCTION_MODE_NONE:
        tl.store(loss_ptr, loss_sum)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    rows, cols = 9, 150
    y = torch.log_softmax(torch.randn(rows, cols, generator=g), dim=1)
    gt = torch.softmax(torch.randn(rows, cols, generator=g), dim=1)
    loss = torch.empty(rows)
    return {
        "kernel": "_kldiv_kernel_forward",
        "grid": (rows,),
        "args": [y, y.stride(0), gt, gt.stride(0), loss, loss.stride(0), cols, 1e-10],
        "kwargs": {"BLOCK_SIZE": 64, "log_target": False, "reduction": _REDUCTION_MODE_BATCHMEAN.value},
        "outputs": [4],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    y, _, gt = case["args"][:3]
    return [torch.nn.functional.kl_div(y, gt, reduction="none").sum(dim=1)]


# --- workload: all-gather the predictions' rows (each rank holds its tokens'
# log-probabilities; the teacher's targets, also in log-space, are every
# rank's), per-row sums -------------------------------------------------------

KERNEL = _kldiv_kernel_forward
PLANS = ["all-gather{tensor=y_ptr dim=0}"]
COLLECTIVES = {"y_ptr": "y"}
ROWS, COLS = 10, 150


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(ROWS, world, rank)
    gt = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"y": torch.log_softmax(torch.randn(rows, COLS, generator=g), dim=1),
            "gt": torch.log_softmax(torch.randn(ROWS, COLS, generator=gt), dim=1)}


def launch(kernel, y, gt):
    loss = torch.zeros(y.shape[0], device=y.device)
    kernel[(y.shape[0],)](y, y.stride(0), gt, gt.stride(0), loss, loss.stride(0), COLS, 1e-10, BLOCK_SIZE=64,
                          log_target=True, reduction=_REDUCTION_MODE_SUM.value)
    return loss
