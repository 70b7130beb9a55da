"""SwiGLU backward in the style of Liger-Kernel's, but persistent: a fixed
number of programs stride over the rows (`tl.range(pid, n_rows,
num_programs)`), recompute silu(a) in fp32 and write the gradients over the
activations in place (`da` into `a`, `db` into `b`), as Liger does to save
memory. The upstream gradient `dc` is only read."""

import torch
import triton
import triton.language as tl


@triton.jit
def swiglu_backward_inplace_kernel(dc_ptr, a_ptr, b_ptr, row_stride, n_rows, n_cols: tl.constexpr,
                                   BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    num_programs = tl.num_programs(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    for row in tl.range(pid, n_rows, num_programs):
        offsets = row * row_stride + col_offsets
        dc_row = tl.load(dc_ptr + offsets, mask=mask, other=0)
        a_row = tl.load(a_ptr + offsets, mask=mask, other=0).to(tl.float32)
        b_row = tl.load(b_ptr + offsets, mask=mask, other=0)
        sig_a = tl.sigmoid(a_row)
        silu_a = a_row * sig_a
        db_row = dc_row * silu_a
        da_row = dc_row * (silu_a * (1 - sig_a) + sig_a) * b_row
        tl.store(a_ptr + offsets, da_row, mask=mask)
        tl.store(b_ptr + offsets, db_row, mask=mask)


PROGRAMS = 4  # fewer programs than rows


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    rows, cols = 10, 40
    dc = torch.randn(rows, cols, generator=g)
    a = torch.randn(rows, cols, generator=g)
    b = torch.randn(rows, cols, generator=g)
    return {
        "kernel": "swiglu_backward_inplace_kernel",
        "grid": (PROGRAMS,),
        "args": [dc, a, b, a.stride(0), rows],
        "kwargs": {"n_cols": cols, "BLOCK_SIZE": 64},
        "outputs": [1, 2],
        "inout": [1, 2],  # read, then overwritten with the gradients
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    dc, a, b = (t.clone() for t in case["args"][:3])
    a.requires_grad_(True)
    b.requires_grad_(True)
    (torch.nn.functional.silu(a) * b).backward(dc)
    return [a.grad, b.grad]


# --- workload: all-gather the upstream gradient's rows into the backward ----

KERNEL = swiglu_backward_inplace_kernel
PLANS = ["all-gather{tensor=dc_ptr dim=0 size=n_rows}"]
COLLECTIVES = {"dc_ptr": "dc"}
ROWS, COLS = 12, 40


def make_inputs(rank, world, seed):
    from syncopate.runtime.workload import shard_bounds

    g = torch.Generator().manual_seed(seed * 1000 + rank)
    _, rows = shard_bounds(ROWS, world, rank)
    gab = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"dc": torch.randn(rows, COLS, generator=g), "a": torch.randn(ROWS, COLS, generator=gab),
            "b": torch.randn(ROWS, COLS, generator=gab)}


def launch(kernel, dc, a, b):
    a, b = a.clone(), b.clone()
    kernel[(PROGRAMS,)](dc, a, b, a.stride(0), a.shape[0], n_cols=COLS, BLOCK_SIZE=64)
    return torch.cat([a, b])
