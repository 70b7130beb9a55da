"""SwiGLU forward and backward in the style of Liger-Kernel: one row per
program, `a_ptr += program_id * stride`, silu computed in fp32. Both kernels
take `a_ptr`: a fused launch names the one to fuse (--kernel)."""

import torch
import triton
import triton.language as tl


@triton.jit
def silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def swiglu_forward_kernel(a_ptr, b_ptr, c_ptr, stride, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    a_ptr += program_id * stride
    b_ptr += program_id * stride
    c_ptr += program_id * stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    a_row = tl.load(a_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    b_row = tl.load(b_ptr + col_offsets, mask=mask, other=0)
    c_row = silu(a_row) * b_row
    tl.store(c_ptr + col_offsets, c_row, mask=mask)


@triton.jit
def swiglu_backward_kernel(dc_ptr, a_ptr, b_ptr, da_ptr, db_ptr, stride, n_cols: tl.constexpr,
                           BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    dc_ptr += program_id * stride
    a_ptr += program_id * stride
    b_ptr += program_id * stride
    da_ptr += program_id * stride
    db_ptr += program_id * stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    dc_row = tl.load(dc_ptr + col_offsets, mask=mask, other=0)
    a_row = tl.load(a_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    b_row = tl.load(b_ptr + col_offsets, mask=mask, other=0)
    sig_a = tl.sigmoid(a_row)
    silu_a = a_row * sig_a
    db_row = dc_row * silu_a
    da_row = dc_row * (silu_a * (1 - sig_a) + sig_a) * b_row
    tl.store(da_ptr + col_offsets, da_row, mask=mask)
    tl.store(db_ptr + col_offsets, db_row, mask=mask)


def make_case(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    rows, cols = 6, 80
    a = torch.randn(rows, cols, generator=g)
    b = torch.randn(rows, cols, generator=g)
    c = torch.empty(rows, cols)
    return {
        "kernel": "swiglu_forward_kernel",
        "grid": (rows,),
        "args": [a, b, c, a.stride(0)],
        "kwargs": {"n_cols": cols, "BLOCK_SIZE": 128},
        "outputs": [2],
        "atol": 1e-5,
        "rtol": 1e-5,
    }


def reference(case: dict) -> list:
    a, b = case["args"][:2]
    return [torch.nn.functional.silu(a) * b]


# --- workload: all-gather the gate activations' rows into the forward -------

KERNEL = swiglu_forward_kernel
ROWS, COLS = 12, 80
# No size=: the kernel has no row-count parameter, so the plan reads the
# row count from a_ptr's shape at launch.
PLANS = ["all-gather{tensor=a_ptr dim=0}"]
COLLECTIVES = {"a_ptr": "a"}


def make_inputs(rank, world, seed):
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    gb = torch.Generator().manual_seed(seed * 1000 + 999)
    return {"a": torch.randn(ROWS // world, COLS, generator=g), "b": torch.randn(ROWS, COLS, generator=gb)}


def launch(kernel, a, b):
    c = torch.empty_like(b)
    kernel[(a.shape[0],)](a, b, c, a.stride(0), n_cols=COLS, BLOCK_SIZE=128)
    return c
