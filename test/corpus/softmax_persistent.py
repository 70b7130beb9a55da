"""Persistent row-wise softmax: a fixed number of programs stride over rows."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, NUM_STAGES: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=NUM_STAGES):
        row_start_ptr = in_ptr + row_idx * in_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(row_start_ptr + col_offsets, mask=mask, other=float("-inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        out_row_ptr = out_ptr + row_idx * out_row_stride
        tl.store(out_row_ptr + col_offsets, softmax_output, mask=mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    n_rows, n_cols = 37, 100
    x = torch.randn(n_rows, n_cols, generator=g) * 3.0
    y = torch.empty(n_rows, n_cols)
    return {
        "kernel": "softmax_kernel",
        "grid": (8,),
        "args": [y, x, x.stride(0), y.stride(0), n_rows, n_cols],
        "kwargs": {"BLOCK_SIZE": triton.next_power_of_2(n_cols), "NUM_STAGES": 2},
        "outputs": [0],
        "atol": 1e-6,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    x = case["args"][1]
    return [torch.softmax(x, dim=1)]


# --- workload: all-gather the input's rows into the persistent row loop -----

KERNEL = softmax_kernel
PLANS = ["all-gather{tensor=in_ptr dim=0 size=n_rows}"]
COLLECTIVES = {"in_ptr": "x"}
ROWS, COLS = 37, 100


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(ROWS, world, rank)
    return {"x": torch.randn(rows, COLS, generator=g) * 3.0}


def launch(kernel, x):
    y = torch.empty_like(x)
    kernel[(8,)](y, x, x.stride(0), y.stride(0), x.shape[0], x.shape[1],
                 BLOCK_SIZE=triton.next_power_of_2(x.shape[1]), NUM_STAGES=2)
    return y
