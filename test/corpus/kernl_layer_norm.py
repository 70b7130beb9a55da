"""Single-pass LayerNorm / RMSNorm forward in the style of kernl: one program
per row, row and column strides as parameters (`a_row_off = row_idx *
a_row_stride`, `col_offs * a_col_stride`), block statistics merged into
scalar running `mean`/`var` in one pass over column blocks (Python `min` for
the last block's width), constexpr `IS_RMSNORM` and `HAS_BIAS` flags, the
inverse std from `tl.math.rsqrt`, `eviction_policy` hints on the loads, and
a launch by keyword with the input passed as the bias when there is none."""

import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd_single_pass(
    output_ptr,
    a_ptr,
    weight_ptr,
    bias_ptr,
    mean_ptr,
    rstd_ptr,
    output_row_stride,
    output_col_stride,
    a_row_stride,
    a_col_stride,
    N,
    eps,
    HAS_BIAS: tl.constexpr,
    IS_RMSNORM: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    """
    :param output_ptr: output tensor
    :param a_ptr: input tensor
    :param weight_ptr: weights applied to the normalized input
    :param bias_ptr: bias added to the normalized input (read if HAS_BIAS)
    :param mean_ptr: per-row mean, saved for the backward pass
    :param rstd_ptr: per-row inverse standard deviation, saved for the backward pass
    :param N: number of elements per row
    :param eps: added to the variance
    :param HAS_BIAS: whether the bias is provided
    :param IS_RMSNORM: whether to normalize by the root mean square only
    :param BLOCK_SIZE: columns per block
    """
    row_idx = tl.program_id(0)
    a_row_off = row_idx * a_row_stride
    block_range_offs = tl.arange(0, BLOCK_SIZE)

    # one pass: merge each block's mean and sum of squared deviations
    mean = 0.0
    var = 0.0
    for block_start in range(0, N, BLOCK_SIZE):
        block_end = min(block_start + BLOCK_SIZE, N)
        block_count = block_end - block_start
        col_offs = block_start + block_range_offs
        col_mask = col_offs < N
        a = tl.load(a_ptr + a_row_off + col_offs * a_col_stride, mask=col_mask, other=0.0,
                    eviction_policy="evict_last").to(tl.float32)
        if IS_RMSNORM:
            var += tl.sum(a * a, axis=0)
        else:
            block_mean = tl.sum(a, axis=0) / block_count
            block_dev = tl.where(col_mask, a - block_mean, 0.0)
            delta = block_mean - mean
            mean += delta * block_count / block_end
            var += tl.sum(block_dev * block_dev, axis=0) + delta * delta * block_start * block_count / block_end

    var /= N
    rstd = tl.math.rsqrt(var + eps)

    tl.store(mean_ptr + row_idx, mean)
    tl.store(rstd_ptr + row_idx, rstd)

    for block_start in range(0, N, BLOCK_SIZE):
        col_offs = block_start + block_range_offs
        col_mask = col_offs < N
        weight = tl.load(weight_ptr + col_offs, mask=col_mask)
        a = tl.load(a_ptr + a_row_off + col_offs * a_col_stride, mask=col_mask, other=0.0,
                    eviction_policy="evict_first").to(tl.float32)
        out = (a - mean) * rstd * weight
        if HAS_BIAS:
            bias = tl.load(bias_ptr + col_offs, mask=col_mask)
            out = out + bias
        tl.store(output_ptr + row_idx * output_row_stride + col_offs * output_col_stride, out, mask=col_mask)


def layer_norm(x, weight, bias, eps, use_rms_norm, implementation=layer_norm_fwd_single_pass):
    out = torch.empty_like(x)
    a_arg = x.reshape(-1, x.shape[-1])
    M, N = a_arg.shape
    mean = torch.empty((M,), dtype=torch.float32, device=x.device)
    rstd = torch.empty((M,), dtype=torch.float32, device=x.device)
    implementation[(M,)](
        output_ptr=out,
        a_ptr=a_arg,
        weight_ptr=weight,
        bias_ptr=bias if bias is not None else a_arg,
        mean_ptr=mean,
        rstd_ptr=rstd,
        output_row_stride=out.stride(-2),
        output_col_stride=out.stride(-1),
        a_row_stride=a_arg.stride(0),
        a_col_stride=a_arg.stride(1),
        N=N,
        eps=eps,
        HAS_BIAS=bias is not None,
        IS_RMSNORM=use_rms_norm,
        BLOCK_SIZE=32,
    )
    return out, mean, rstd


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    M, N = 7, 90
    x = torch.randn(M, N, generator=g) * 2 + 0.5
    w = torch.rand(N, generator=g) + 0.5
    out, mean, rstd = torch.empty(M, N), torch.empty(M), torch.empty(M)
    return {
        "kernel": "layer_norm_fwd_single_pass",
        "grid": (M,),
        # no bias: the input is passed in its place, as kernl's wrapper does
        "args": [out, x, w, x, mean, rstd, out.stride(0), out.stride(1), x.stride(0), x.stride(1), N, 1e-5],
        "kwargs": {"HAS_BIAS": False, "IS_RMSNORM": True, "BLOCK_SIZE": 32},
        "outputs": [0, 4, 5],
        "atol": 1e-4,
        "rtol": 1e-4,
    }


def reference(case: dict) -> list:
    _, x, w = case["args"][:3]
    eps = case["args"][-1]
    rstd = torch.rsqrt((x * x).mean(dim=1) + eps)
    # RMSNorm leaves the mean at zero
    return [x * rstd[:, None] * w, torch.zeros(x.shape[0]), rstd]


# --- workload: all-gather the input's rows (sequence-parallel LayerNorm);
# the kernel has no row count: the plan reads it from a_ptr's shape -------

KERNEL = layer_norm_fwd_single_pass
PLANS = ["all-gather{tensor=a_ptr dim=0}"]
COLLECTIVES = {"a_ptr": "x"}
ROWS, COLS = 10, 90


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(ROWS, world, rank)
    gw = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"x": torch.randn(rows, COLS, generator=g) * 2 + 0.5,
            "weight": torch.rand(COLS, generator=gw) + 0.5, "bias": torch.randn(COLS, generator=gw)}


def launch(kernel, x, weight, bias):
    return layer_norm(x, weight, bias, 1e-5, False, implementation=kernel)
